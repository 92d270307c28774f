package dev.chainreaction.probe.cilium;

/** ip:port as cilium-dbg prints it: IPv6 in brackets, IPv4 bare. */
final class Addresses {
    private Addresses() {
    }

    static String hostPort(String ip, int port) {
        return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port;
    }

    /** "10.0.0.1:80", "[fd00::1]:80", or the unbracketed "fd00::1:80" older ct dumps print; null if not one. */
    static String[] split(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            return null;
        }
        String host = address.substring(0, colon);
        String port = address.substring(colon + 1);
        if (!port.chars().allMatch(Character::isDigit) || port.length() > 5) {
            return null;
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
            return null;
        }
        return new String[] {host, port};
    }
}
