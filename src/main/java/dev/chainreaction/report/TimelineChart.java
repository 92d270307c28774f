package dev.chainreaction.report;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One scenario run as a self-contained SVG: fault windows as bands across every row, one row per marker lane
 * (point events), one per chain (present/absent bars) and one per probe (ok/not-ok dots), on a time axis in
 * seconds relative to {@code t0}. Every point carries a {@code <title>} so the full text is a tooltip.
 */
public record TimelineChart(String title, Instant t0, Instant end, List<Window> faultWindows, List<Lane> chainLanes,
        List<Marker> markers, List<Probe> probes) {

    static final int WIDTH = 1100;
    static final int PLOT_X = 230;
    static final int PLOT_W = WIDTH - PLOT_X - 20;
    static final int TOP = 64;
    static final int ROW_H = 22;
    static final int AXIS_H = 34;
    /** Rough width of one character at font-size 11; good enough to keep labels from colliding. */
    static final double CHAR_W = 6.2;
    static final int MAX_LABEL_CHARS = 48;
    static final int BURST_GAP = 12;
    static final String PRESENT = "#2e9d4f", ABSENT = "#d64541", OK = "#2e9d4f", NOT_OK = "#d64541";
    static final String FAULT = "#ff6a00", INFO = "#4a6fa5";
    private static final int[] STEPS = {1, 2, 5, 10, 15, 30, 60};
    private static final Comparator<Instant> BY_TIME = Comparator.nullsFirst(Comparator.naturalOrder());

    public record Window(Instant start, Instant end, String label) {
    }

    public record Presence(Instant at, boolean present) {
    }

    public record Lane(String name, List<Presence> samples) {
        public Lane {
            samples = sorted(samples, Presence::at);
        }
    }

    public record Marker(Instant at, String lane, String text, Kind kind) {
        public enum Kind { INFO, GOOD, BAD }
    }

    public record Sample(Instant at, boolean ok, String label) {
    }

    public record Probe(String name, List<Sample> samples) {
        public Probe {
            samples = sorted(samples, Sample::at);
        }
    }

    public TimelineChart {
        Objects.requireNonNull(t0, "t0");
        title = title == null ? "" : title;
        // A zero or negative span would divide by zero; one second still shows the events at t0.
        end = end == null || !end.isAfter(t0) ? t0.plusSeconds(1) : end;
        faultWindows = faultWindows == null ? List.of() : List.copyOf(faultWindows);
        chainLanes = chainLanes == null ? List.of() : List.copyOf(chainLanes);
        // Not sorted here: marker rows follow the order in which their lane first appears in the input.
        markers = markers == null ? List.of() : List.copyOf(markers);
        probes = probes == null ? List.of() : List.copyOf(probes);
    }

    public String svg() {
        Map<String, List<Marker>> markerRows = new LinkedHashMap<>();
        for (Marker m : markers) {
            markerRows.computeIfAbsent(String.valueOf(m.lane()), k -> new ArrayList<>()).add(m);
        }
        markerRows.values().forEach(l -> l.sort(Comparator.comparing(Marker::at, BY_TIME)));
        int rows = markerRows.size() + chainLanes.size() + probes.size();
        int plotH = Math.max(rows, 1) * ROW_H;
        int height = TOP + plotH + AXIS_H;

        StringBuilder sb = new StringBuilder();
        sb.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">\n", WIDTH, height, WIDTH, height));
        sb.append("<defs><pattern id=\"unknown\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                + "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#ccc\" "
                + "stroke-width=\"2\"/></pattern></defs>\n");
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        sb.append(f("<text class=\"title\" x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
                escape(title)));
        legend(sb);
        axis(sb, plotH);

        int row = 0;
        for (Map.Entry<String, List<Marker>> e : markerRows.entrySet()) {
            markerRow(sb, row++, e.getKey(), e.getValue());
        }
        for (Lane lane : chainLanes) {
            laneRow(sb, row++, lane);
        }
        for (Probe probe : probes) {
            probeRow(sb, row++, probe);
        }
        // Drawn last and translucent so the band tints every row without hiding bars or swallowing tooltips.
        for (Window w : faultWindows) {
            double x1 = x(w.start()), x2 = Math.max(x1, x(w.end()));
            sb.append(f("<g class=\"fault\" pointer-events=\"none\"><rect class=\"fault-window\" x=\"%.2f\" y=\"%d\" "
                    + "width=\"%.2f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"%s\" "
                    + "stroke-opacity=\"0.6\"/><text x=\"%.2f\" y=\"%d\" fill=\"#b34700\">%s</text></g>\n",
                    x1, TOP, x2 - x1, plotH, FAULT, FAULT, x1 + 3, TOP - 3, escape(clip(w.label(), MAX_LABEL_CHARS))));
        }
        return sb.append("</svg>\n").toString();
    }

    /** x coordinate of an instant, clamped to the plot. */
    double x(Instant at) {
        if (at == null || at.isBefore(t0)) {
            return PLOT_X;
        }
        if (at.isAfter(end)) {
            return PLOT_X + PLOT_W;
        }
        return PLOT_X + PLOT_W * seconds(at) / seconds(end);
    }

    /** Smallest nice step giving at most 12 ticks; past 12 minutes whole minutes, still about 10 ticks. */
    static int tickStep(double spanSeconds) {
        for (int step : STEPS) {
            if (spanSeconds / step <= 12) {
                return step;
            }
        }
        return (int) Math.ceil(spanSeconds / 10 / 60) * 60;
    }

    public static String escape(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                // Control characters (e.g. from raw command output) are not allowed in XML 1.0 at all.
                default -> sb.append(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c);
            }
        }
        return sb.toString();
    }

    private void legend(StringBuilder sb) {
        String[][] items = {{FAULT, "fault window"}, {PRESENT, "present"}, {ABSENT, "absent"}, {OK, "ok"},
                {NOT_OK, "not ok"}};
        double x = 10;
        for (String[] it : items) {
            sb.append(it[1].endsWith("ok") // probes are dots, everything else bands/bars
                    ? f("<circle cx=\"%.1f\" cy=\"40\" r=\"4\" fill=\"%s\"/>", x + 5, it[0])
                    : f("<rect x=\"%.1f\" y=\"35\" width=\"14\" height=\"10\" fill=\"%s\" fill-opacity=\"%s\"/>",
                            x, it[0], it[0].equals(FAULT) ? "0.35" : "1"));
            sb.append(f("<text class=\"legend\" x=\"%.1f\" y=\"44\">%s</text>\n", x + 18, it[1]));
            x += 18 + it[1].length() * CHAR_W + 20;
        }
    }

    private void axis(StringBuilder sb, int plotH) {
        int y = TOP + plotH;
        double span = seconds(end);
        int step = tickStep(span);
        sb.append(f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
                PLOT_X, y, PLOT_X + PLOT_W, y));
        for (long s = 0; s <= span + 1e-9; s += step) {
            double x = x(t0.plusSeconds(s));
            sb.append(f("<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#eee\"/>", x, TOP, x, y));
            sb.append(f("<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#333\"/>", x, y, x, y + 4));
            sb.append(f("<text class=\"tick\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">+%ds</text>\n", x, y + 16, s));
        }
    }

    /**
     * Ticks closer than {@link #BURST_GAP} px form a burst with one label, "first text (+n)", placed after its last
     * tick so the burst does not cross it out; a label that would overlap the previous one is dropped.
     */
    private void markerRow(StringBuilder sb, int row, String name, List<Marker> rowMarkers) {
        double cy = rowName(sb, row, name, "marker-row");
        double lastLabelEnd = Double.NEGATIVE_INFINITY;
        for (int i = 0, j; i < rowMarkers.size(); i = j) {
            j = i + 1;
            while (j < rowMarkers.size() && x(rowMarkers.get(j).at()) - x(rowMarkers.get(j - 1).at()) <= BURST_GAP) {
                j++;
            }
            String more = j - i > 1 ? " (+" + (j - i - 1) + ")" : "";
            String text = clip(rowMarkers.get(i).text(), MAX_LABEL_CHARS) + more;
            double w = text.length() * CHAR_W;
            double lx = Math.min(x(rowMarkers.get(j - 1).at()) + 6, WIDTH - 2 - w);
            if (lx >= lastLabelEnd + 4) {
                sb.append(f("<text class=\"marker-label\" x=\"%.2f\" y=\"%.1f\" fill=\"%s\">%s</text>\n", lx,
                        cy + 4, colour(rowMarkers.get(i).kind()), escape(text)));
                lastLabelEnd = lx + w;
            }
        }
        for (Marker m : rowMarkers) {
            double x = x(m.at());
            sb.append(f("<g class=\"marker\"><title>%s</title><polygon points=\"%.2f,%.1f %.2f,%.1f %.2f,%.1f "
                    + "%.2f,%.1f\" fill=\"%s\"/></g>\n", escape(when(m.at()) + " " + m.text()), x, cy - 5, x + 4, cy,
                    x, cy + 5, x - 4, cy, colour(m.kind())));
        }
    }

    private static String colour(Marker.Kind kind) {
        return kind == Marker.Kind.GOOD ? PRESENT : kind == Marker.Kind.BAD ? ABSENT : INFO;
    }

    private void laneRow(StringBuilder sb, int row, Lane lane) {
        double cy = rowName(sb, row, lane.name(), "lane-name");
        List<Presence> s = lane.samples();
        if (!s.isEmpty() && x(s.get(0).at()) > PLOT_X) {
            bar(sb, "unknown", "url(#unknown)", PLOT_X, x(s.get(0).at()), cy, "unknown before first sample");
        }
        for (int i = 0; i < s.size(); i++) {
            Presence p = s.get(i);
            Instant until = i + 1 < s.size() ? s.get(i + 1).at() : end;
            String what = (p.present() ? "present" : "absent") + " " + when(p.at()) + " .. " + when(until);
            bar(sb, p.present() ? "present" : "absent", p.present() ? PRESENT : ABSENT, x(p.at()), x(until), cy, what);
        }
    }

    private void bar(StringBuilder sb, String cls, String fill, double x1, double x2, double cy, String tip) {
        if (x2 > x1) {
            sb.append(f("<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                    + "<title>%s</title></rect>\n", cls, x1, cy - 7, x2 - x1, 14, fill, escape(tip)));
        }
    }

    private void probeRow(StringBuilder sb, int row, Probe probe) {
        double cy = rowName(sb, row, probe.name(), "probe-name");
        for (Sample s : probe.samples()) {
            sb.append(f("<g class=\"sample\"><title>%s</title><circle cx=\"%.2f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>"
                    + "</g>\n", escape(probe.name() + " " + when(s.at()) + " " + (s.ok() ? "ok" : "NOT ok")
                    + (s.label() == null ? "" : ": " + s.label())), x(s.at()), cy, s.ok() ? OK : NOT_OK));
        }
    }

    /** Writes the row's name in the left column and a faint separator; returns the row's vertical centre. */
    private double rowName(StringBuilder sb, int row, String name, String cls) {
        int y = TOP + row * ROW_H;
        sb.append(f("<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#f2f2f2\"/>", y, WIDTH, y));
        sb.append(f("<text class=\"%s\" x=\"10\" y=\"%.1f\"><title>%s</title>%s</text>\n", cls, y + ROW_H / 2.0 + 4,
                escape(name), escape(clip(name, 34))));
        return y + ROW_H / 2.0;
    }

    private double seconds(Instant at) {
        return Duration.between(t0, at).toNanos() / 1e9;
    }

    private String when(Instant at) {
        return at == null ? "?" : f("+%.3fs", seconds(at));
    }

    private static String clip(String s, int max) {
        String t = s == null ? "" : s.strip();
        return t.length() > max ? t.substring(0, max - 1) + "…" : t;
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static <T> List<T> sorted(List<T> list, java.util.function.Function<T, Instant> at) {
        if (list == null) {
            return List.of();
        }
        List<T> copy = new ArrayList<>(list);
        copy.sort(Comparator.comparing(at, BY_TIME));
        return List.copyOf(copy);
    }
}
