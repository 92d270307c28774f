package dev.chainreaction.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chainreaction.report.TimelineChart.Lane;
import dev.chainreaction.report.TimelineChart.Marker;
import dev.chainreaction.report.TimelineChart.Marker.Kind;
import dev.chainreaction.report.TimelineChart.Presence;
import dev.chainreaction.report.TimelineChart.Probe;
import dev.chainreaction.report.TimelineChart.Sample;
import dev.chainreaction.report.TimelineChart.Window;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

class TimelineChartTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private static Instant at(double seconds) {
        return T0.plusNanos((long) (seconds * 1e9));
    }

    private static TimelineChart chart(List<Window> windows, List<Lane> lanes, List<Marker> markers,
            List<Probe> probes) {
        return new TimelineChart("restart iptables vs kubelet", T0, at(40), windows, lanes, markers, probes);
    }

    @Test
    void faultWindowSitsOnTheAxisAtItsStartAndEnd() {
        Document doc = parse(chart(List.of(new Window(at(10), at(20), "systemctl restart iptables")), List.of(),
                List.of(), List.of()));

        List<Element> rects = withClass(doc, "rect", "fault-window");
        assertThat(rects).hasSize(1);
        double quarter = TimelineChart.PLOT_W / 4.0;
        assertThat(num(rects.get(0), "x")).isCloseTo(TimelineChart.PLOT_X + quarter, within(0.05));
        assertThat(num(rects.get(0), "width")).isCloseTo(quarter, within(0.05));
        assertThat(visibleText(withClass(doc, "g", "fault").get(0).getElementsByTagName("text").item(0)))
                .isEqualTo("systemctl restart iptables");
    }

    @Test
    void rendersOneNameForEveryLaneAndRowsInOrderMarkersLanesProbes() {
        List<Lane> lanes = List.of(new Lane("nft filter KUBE-FIREWALL", List.of()),
                new Lane("nft mangle KUBE-IPTABLES-HINT", List.of()), new Lane("legacy nat KUBE-SERVICES", List.of()));
        List<Marker> markers = List.of(new Marker(at(3), "kubelet", "started", Kind.INFO),
                new Marker(at(1), "iptables", "restart", Kind.INFO),
                new Marker(at(5), "kubelet", "verdict: failed", Kind.BAD));
        Document doc = parse(chart(List.of(), lanes, markers,
                List.of(new Probe("NodePort", List.of(new Sample(at(2), true, "200"))))));

        List<Element> names = withClass(doc, "text", "lane-name");
        assertThat(names).extracting(TimelineChartTest::visibleText).containsExactly("nft filter KUBE-FIREWALL",
                "nft mangle KUBE-IPTABLES-HINT", "legacy nat KUBE-SERVICES");
        List<Element> markerRows = withClass(doc, "text", "marker-row");
        assertThat(markerRows).extracting(TimelineChartTest::visibleText).containsExactly("kubelet", "iptables");
        double lastMarkerRow = num(markerRows.get(1), "y");
        double probeRow = num(withClass(doc, "text", "probe-name").get(0), "y");
        assertThat(num(names.get(0), "y")).isGreaterThan(lastMarkerRow);
        assertThat(probeRow).isGreaterThan(num(names.get(2), "y"));
    }

    @Test
    void presentAbsentPresentLaneDrawsBothColoursInTimeOrder() {
        Lane lane = new Lane("nft filter KUBE-FIREWALL", List.of(new Presence(at(20), true),
                new Presence(at(5), true), new Presence(at(12), false))); // deliberately unsorted
        Document doc = parse(chart(List.of(), List.of(lane), List.of(), List.of()));

        List<Element> present = withClass(doc, "rect", "present");
        List<Element> absent = withClass(doc, "rect", "absent");
        assertThat(present).hasSize(2).allSatisfy(r -> assertThat(r.getAttribute("fill"))
                .isEqualTo(TimelineChart.PRESENT));
        assertThat(absent).hasSize(1).allSatisfy(r -> assertThat(r.getAttribute("fill"))
                .isEqualTo(TimelineChart.ABSENT));
        assertThat(TimelineChart.PRESENT).isNotEqualTo(TimelineChart.ABSENT);
        double absentX = num(absent.get(0), "x");
        assertThat(num(present.get(0), "x")).isLessThan(absentX);
        assertThat(num(present.get(1), "x")).isGreaterThan(absentX);
        // The absence holds from +12s until the next sample at +20s.
        assertThat(num(absent.get(0), "width")).isCloseTo(TimelineChart.PLOT_W * 8 / 40.0, within(0.05));
        // The last presence holds until the end of the chart.
        assertThat(num(present.get(1), "x") + num(present.get(1), "width"))
                .isCloseTo(TimelineChart.PLOT_X + TimelineChart.PLOT_W, within(0.05));
        // Nothing is known before the first sample.
        assertThat(withClass(doc, "rect", "unknown")).hasSize(1);
    }

    @Test
    void escapesMarkupInEveryText() {
        String nasty = "a<b & c>\"d\" 'e' \u0001";
        assertThat(TimelineChart.escape(nasty)).isEqualTo("a&lt;b &amp; c&gt;&quot;d&quot; &apos;e&apos; ?");
        TimelineChart chart = new TimelineChart(nasty, T0, at(40), List.of(new Window(at(1), at(2), nasty)),
                List.of(new Lane(nasty, List.of(new Presence(at(1), true)))),
                List.of(new Marker(at(1), nasty, nasty, Kind.BAD)),
                List.of(new Probe(nasty, List.of(new Sample(at(1), false, nasty)))));

        Document doc = parse(chart);

        assertThat(visibleText(withClass(doc, "text", "title").get(0))).isEqualTo("a<b & c>\"d\" 'e' ?");
        assertThat(chart.svg()).doesNotContain("<b &");
    }

    @Test
    void everyMarkerAndProbeSampleHasATooltipWithItsFullText() {
        List<Marker> markers = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            markers.add(new Marker(at(10 + i * 0.1), "iptables", "-C OUTPUT -t filter -j KUBE-FIREWALL → exit " + i,
                    i % 2 == 0 ? Kind.BAD : Kind.GOOD));
        }
        List<Sample> samples = List.of(new Sample(at(1), true, "exit 7"), new Sample(at(2), false, "exit 28"),
                new Sample(at(3), true, "exit 7"));
        Document doc = parse(chart(List.of(), List.of(), markers, List.of(new Probe("no-backend", samples))));

        List<Element> gs = withClass(doc, "g", "marker");
        assertThat(gs).hasSize(30);
        for (int i = 0; i < 30; i++) {
            assertThat(title(gs.get(i))).contains("-C OUTPUT -t filter -j KUBE-FIREWALL → exit " + i);
        }
        List<Element> dots = withClass(doc, "g", "sample");
        assertThat(dots).hasSize(3);
        assertThat(dots).extracting(TimelineChartTest::title).allSatisfy(t -> assertThat(t).startsWith("no-backend"));
        assertThat(title(dots.get(1))).contains("NOT ok", "exit 28");
        assertThat(((Element) dots.get(1).getElementsByTagName("circle").item(0)).getAttribute("fill"))
                .isEqualTo(TimelineChart.NOT_OK);
    }

    @Test
    void closeMarkersShowOnlyNonOverlappingLabels() {
        List<Marker> close = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // 50 ms apart: about 1 px, one burst
            close.add(new Marker(at(10 + i * 0.05), "iptables", "-C OUTPUT -j KUBE-FIREWALL → exit 2", Kind.BAD));
        }
        // 30 px after the burst: its own tick, but its label would overlap the burst's, so it is dropped.
        close.add(new Marker(at(10.95 + 30 * 40.0 / TimelineChart.PLOT_W), "iptables", "-C OUTPUT → exit 0",
                Kind.GOOD));
        TimelineChart chart = chart(List.of(), List.of(), close, List.of());
        Document doc = parse(chart);

        List<Element> labels = withClass(doc, "text", "marker-label");
        assertThat(labels).extracting(TimelineChartTest::visibleText)
                .containsExactly("-C OUTPUT -j KUBE-FIREWALL → exit 2 (+19)");
        assertThat(num(labels.get(0), "x")).as("label starts after the burst's last tick")
                .isGreaterThan(chart.x(at(10.95)));
        assertThat(withClass(doc, "g", "marker")).hasSize(21);

        List<Marker> far = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // 10 s = 217 px apart
            far.add(new Marker(at(i * 10), "kubelet", "step " + i, Kind.INFO));
        }
        List<Element> farLabels = withClass(parse(chart(List.of(), List.of(), far, List.of())), "text",
                "marker-label");
        assertThat(farLabels).extracting(TimelineChartTest::visibleText).containsExactly("step 0", "step 1",
                "step 2", "step 3");
    }

    @Test
    void emptyInputAndNonPositiveSpanRenderJustTitleAndAxis() {
        TimelineChart chart = new TimelineChart("empty", T0, T0.minusSeconds(5), List.of(), List.of(), List.of(),
                List.of());

        Document doc = parse(chart);

        assertThat(visibleText(withClass(doc, "text", "title").get(0))).isEqualTo("empty");
        assertThat(withClass(doc, "text", "tick")).extracting(TimelineChartTest::visibleText)
                .containsExactly("+0s", "+1s");
        assertThat(doc.getElementsByTagName("polygon").getLength()).isZero();
        assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(2); // legend only
        assertThat(parse(new TimelineChart(null, T0, null, null, null, null, null))).isNotNull();
    }

    @Test
    void clampsTimesOutsideTheChart() {
        TimelineChart chart = chart(List.of(new Window(at(-5), at(60), "whole run")),
                List.of(new Lane("chain", List.of(new Presence(at(-10), false), new Presence(at(50), true)))),
                List.of(new Marker(at(-3), "kubelet", "early", Kind.INFO)),
                List.of(new Probe("NodePort", List.of(new Sample(at(99), true, "200")))));

        Document doc = parse(chart);

        Element window = withClass(doc, "rect", "fault-window").get(0);
        assertThat(num(window, "x")).isEqualTo(TimelineChart.PLOT_X);
        assertThat(num(window, "width")).isEqualTo(TimelineChart.PLOT_W);
        Element absent = withClass(doc, "rect", "absent").get(0);
        assertThat(num(absent, "x")).isEqualTo(TimelineChart.PLOT_X);
        assertThat(num(absent, "width")).isEqualTo(TimelineChart.PLOT_W);
        assertThat(withClass(doc, "rect", "present")).isEmpty(); // starts after the end: zero width, not drawn
        String diamond = ((Element) doc.getElementsByTagName("polygon").item(0)).getAttribute("points");
        assertThat(diamond).startsWith(String.format("%d.00,", TimelineChart.PLOT_X));
        Element dot = (Element) withClass(doc, "g", "sample").get(0).getElementsByTagName("circle").item(0);
        assertThat(num(dot, "cx")).isEqualTo(TimelineChart.PLOT_X + TimelineChart.PLOT_W);
    }

    @Test
    void picksANiceTickStep() {
        assertThat(TimelineChart.tickStep(1)).isEqualTo(1);
        assertThat(TimelineChart.tickStep(12)).isEqualTo(1);
        assertThat(TimelineChart.tickStep(20)).isEqualTo(2);
        assertThat(TimelineChart.tickStep(40)).isEqualTo(5);
        assertThat(TimelineChart.tickStep(100)).isEqualTo(10);
        assertThat(TimelineChart.tickStep(300)).isEqualTo(30);
        assertThat(TimelineChart.tickStep(700)).isEqualTo(60);
        assertThat(TimelineChart.tickStep(3600)).isEqualTo(360);

        Document doc = parse(chart(List.of(), List.of(), List.of(), List.of()));
        assertThat(withClass(doc, "text", "tick")).extracting(TimelineChartTest::visibleText)
                .containsExactly("+0s", "+5s", "+10s", "+15s", "+20s", "+25s", "+30s", "+35s", "+40s");
    }

    private static Document parse(TimelineChart chart) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            Document doc = factory.newDocumentBuilder()
                    .parse(new ByteArrayInputStream(chart.svg().getBytes(StandardCharsets.UTF_8)));
            assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
            return doc;
        } catch (Exception e) {
            throw new AssertionError("SVG is not well-formed XML:\n" + chart.svg(), e);
        }
    }

    private static List<Element> withClass(Document doc, String tag, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = doc.getElementsByTagName(tag);
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (cls.equals(e.getAttribute("class"))) {
                out.add(e);
            }
        }
        return out;
    }

    /** The element's own text, without the tooltip in a nested title. */
    private static String visibleText(Node node) {
        StringBuilder sb = new StringBuilder();
        for (Node c = node.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c.getNodeType() == Node.TEXT_NODE) {
                sb.append(c.getNodeValue());
            }
        }
        return sb.toString();
    }

    private static String title(Element e) {
        NodeList titles = e.getElementsByTagName("title");
        assertThat(titles.getLength()).as("tooltip of %s", e.getAttribute("class")).isEqualTo(1);
        return titles.item(0).getTextContent();
    }

    private static double num(Element e, String attribute) {
        return Double.parseDouble(e.getAttribute(attribute));
    }
}
