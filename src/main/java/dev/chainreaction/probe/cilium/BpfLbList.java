package dev.chainreaction.probe.cilium;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The BPF service map as {@code cilium-dbg bpf lb list} prints it: per frontend, slot 0 for the service itself
 * ({@code 0.0.0.0:0 (<revnat>) (0) [ClusterIP, non-routable]}) and one slot per backend. A service without backends
 * has only slot 0. Both layouts are read: grouped (the map key has no slot, continuation rows leave the first
 * column empty) and one row per slot (the key ends in "(slot)", as since the key printed its slot). Entries come in
 * map order: slot 0 need not be first.
 */
public record BpfLbList(Layout layout, List<Frontend> frontends) {
    static final String COMMAND = "cilium-dbg bpf lb list";
    private static final String ADDR = "(\\[[0-9a-fA-F:.]+]|[0-9.]+)";
    private static final Pattern KEY = Pattern.compile(
            "^" + ADDR + ":(\\d+)(?:/(?!i(?:$|\\s))([A-Za-z0-9]+))?(/i)?(?:\\s+\\((\\d+)\\))?$");
    private static final Pattern SERVICE_SLOT = Pattern.compile("^(?:0\\.0\\.0\\.0|\\[::]):0 \\((\\d+)\\) \\(0\\) \\[([^\\]]*)]\\s*(.*)$");
    private static final Pattern BACKEND_SLOT = Pattern.compile("^" + ADDR + ":(\\d+)(?:/([A-Za-z0-9]+))? \\((\\d+)\\) \\((\\d+)\\)$");
    private static final Pattern MISSING = Pattern.compile("^backend (\\d+) not found$");
    private static final Pattern COLUMN_GAP = Pattern.compile("\\s{2,}");

    public BpfLbList {
        frontends = List.copyOf(frontends);
    }

    public enum Layout { GROUPED, ROW_PER_SLOT }

    /**
     * One service frontend: its address (protocol only where the version prints it; "/i" = internal scope), slot 0
     * and the backend slots in slot order.
     */
    public record Frontend(String ip, int port, Optional<String> protocol, boolean internalScope, Optional<ServiceSlot> service,
                           List<BackendSlot> backends, List<MissingBackend> missing) {
        public Frontend {
            backends = List.copyOf(backends);
            missing = List.copyOf(missing);
        }

        /** "10.43.12.7:80/TCP", as the map key prints it (without the slot). */
        public String address() {
            return Addresses.hostPort(ip, port) + protocol.map(p -> "/" + p).orElse("") + (internalScope ? "/i" : "");
        }
    }

    /** Slot 0: the service's reverse-NAT id and flags; the first flag is its type (ClusterIP, NodePort, ...). */
    public record ServiceSlot(int revNat, List<String> flags, String extra) {
        public ServiceSlot {
            flags = List.copyOf(flags);
        }

        public String type() {
            return flags.isEmpty() ? "" : flags.get(0);
        }
    }

    public record BackendSlot(int slot, String ip, int port, Optional<String> protocol, int revNat) {
        /** "10.42.0.15:8080", without protocol, to compare with EndpointSlice addresses. */
        public String address() {
            return Addresses.hostPort(ip, port);
        }
    }

    /** "backend N not found": the slot names a backend id the backend map does not hold. */
    public record MissingBackend(OptionalInt slot, long backendId) {
    }

    /**
     * The frontend at "ip:port", "ip:port/PROTO" or "ip:port/PROTO/i". Without a protocol, the one frontend of any
     * protocol at that address; more than one (TCP and UDP on :53) is an error that names them.
     */
    public Optional<Frontend> frontend(String address) {
        Matcher m = KEY.matcher(address.strip());
        if (!m.matches() || m.group(5) != null) {
            throw new IllegalArgumentException("not a frontend address (expected ip:port[/PROTO][/i]): " + address);
        }
        String ip = unbracket(m.group(1));
        int port = Integer.parseInt(m.group(2));
        Optional<String> protocol = Optional.ofNullable(m.group(3));
        boolean internal = m.group(4) != null;
        List<Frontend> found = frontends.stream()
                .filter(f -> f.ip().equals(ip) && f.port() == port && f.internalScope() == internal)
                .filter(f -> protocol.isEmpty() || f.protocol().isEmpty() || f.protocol().equals(protocol))
                .toList();
        if (found.size() > 1) {
            throw new IllegalArgumentException("frontend " + address + " is ambiguous, name the protocol: "
                    + found.stream().map(Frontend::address).toList());
        }
        return found.stream().findFirst();
    }

    /** The backend slots of a frontend ("10.43.12.7:80"), in slot order; empty when it has none or is not there. */
    public List<BackendSlot> backendsOf(String frontend) {
        return frontend(frontend).map(Frontend::backends).orElse(List.of());
    }

    public static BpfLbList parse(String text) {
        String[] lines = text.split("\n", -1);
        int header = -1;
        for (int i = 0; i < lines.length && header < 0; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            if (!lines[i].startsWith("SERVICE ADDRESS") || !lines[i].contains("BACKEND ADDRESS")) {
                throw CiliumParseException.atLine(COMMAND, i + 1, lines[i],
                        "expected the header 'SERVICE ADDRESS   BACKEND ADDRESS (REVNAT_ID) (SLOT)'");
            }
            header = i;
        }
        if (header < 0) {
            throw new CiliumParseException(COMMAND + " output is empty (not even its header)");
        }
        Map<Key, Builder> byFrontend = new LinkedHashMap<>();
        Key current = null;
        boolean slotsInKeys = false;
        for (int i = header + 1; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i].stripTrailing();
            if (line.isBlank()) {
                continue;
            }
            String entry;
            OptionalInt keySlot = OptionalInt.empty();
            if (Character.isWhitespace(line.charAt(0))) {
                if (current == null) {
                    throw CiliumParseException.atLine(COMMAND, lineNo, line, "continuation row before any service address");
                }
                entry = line.strip();
            } else {
                String[] cells = COLUMN_GAP.split(line, 2);
                if (cells.length < 2) {
                    throw CiliumParseException.atLine(COMMAND, lineNo, line, "expected a service address and a backend entry");
                }
                Matcher k = KEY.matcher(cells[0]);
                if (!k.matches()) {
                    throw CiliumParseException.atLine(COMMAND, lineNo, line,
                            "not a service address (expected ip:port[/PROTO][/i][ (slot)])");
                }
                current = new Key(unbracket(k.group(1)), Integer.parseInt(k.group(2)), Optional.ofNullable(k.group(3)),
                        k.group(4) != null);
                if (k.group(5) != null) {
                    keySlot = OptionalInt.of(Integer.parseInt(k.group(5)));
                    slotsInKeys = true;
                }
                entry = cells[1].strip();
            }
            Builder b = byFrontend.computeIfAbsent(current, Builder::new);
            addEntry(b, entry, keySlot, lineNo, line);
        }
        List<Frontend> frontends = byFrontend.values().stream().map(Builder::build).toList();
        return new BpfLbList(slotsInKeys ? Layout.ROW_PER_SLOT : Layout.GROUPED, frontends);
    }

    private static void addEntry(Builder b, String entry, OptionalInt keySlot, int lineNo, String line) {
        Matcher s = SERVICE_SLOT.matcher(entry);
        Matcher be = BACKEND_SLOT.matcher(entry);
        Matcher missing = MISSING.matcher(entry);
        int slot;
        if (s.matches()) {
            slot = 0;
            if (b.service != null) {
                throw CiliumParseException.atLine(COMMAND, lineNo, line, "second slot 0 for " + b.key.address());
            }
            List<String> flags = s.group(2).isBlank() ? List.of() : List.of(s.group(2).split(",\\s*"));
            b.service = new ServiceSlot(Integer.parseInt(s.group(1)), flags, s.group(3).strip());
        } else if (be.matches()) {
            slot = Integer.parseInt(be.group(5));
            b.backends.add(new BackendSlot(slot, unbracket(be.group(1)), Integer.parseInt(be.group(2)),
                    Optional.ofNullable(be.group(3)), Integer.parseInt(be.group(4))));
        } else if (missing.matches()) {
            b.missing.add(new MissingBackend(keySlot, Long.parseLong(missing.group(1))));
            return;
        } else {
            throw CiliumParseException.atLine(COMMAND, lineNo, line, "not a slot entry (expected '0.0.0.0:0 (<revnat>) (0) [<flags>]', "
                    + "'<ip>:<port>[/PROTO] (<revnat>) (<slot>)' or 'backend <id> not found')");
        }
        if (keySlot.isPresent() && keySlot.getAsInt() != slot) {
            throw CiliumParseException.atLine(COMMAND, lineNo, line,
                    "the key says slot " + keySlot.getAsInt() + " but the entry says slot " + slot);
        }
    }

    private static String unbracket(String ip) {
        return ip.startsWith("[") ? ip.substring(1, ip.length() - 1) : ip;
    }

    private record Key(String ip, int port, Optional<String> protocol, boolean internal) {
        String address() {
            return new Frontend(ip, port, protocol, internal, Optional.empty(), List.of(), List.of()).address();
        }
    }

    private static final class Builder {
        final Key key;
        ServiceSlot service;
        final List<BackendSlot> backends = new ArrayList<>();
        final List<MissingBackend> missing = new ArrayList<>();

        Builder(Key key) {
            this.key = Objects.requireNonNull(key);
        }

        Frontend build() {
            List<BackendSlot> sorted = new ArrayList<>(backends);
            sorted.sort(Comparator.comparingInt(BackendSlot::slot));
            return new Frontend(key.ip(), key.port(), key.protocol(), key.internal(), Optional.ofNullable(service), sorted, missing);
        }
    }
}
