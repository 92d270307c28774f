package dev.chainreaction.probe.cilium;

/** Output that is not what the cilium-dbg command prints; the message names the command and the line. */
public class CiliumParseException extends RuntimeException {
    public CiliumParseException(String message) {
        super(message);
    }

    public CiliumParseException(String message, Throwable cause) {
        super(message, cause);
    }

    static CiliumParseException atLine(String command, int lineNo, String line, String problem) {
        return new CiliumParseException(command + " line " + lineNo + ": " + problem + ": " + line.strip());
    }
}
