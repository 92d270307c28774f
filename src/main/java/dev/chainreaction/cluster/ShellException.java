package dev.chainreaction.cluster;

/** A command could not be run, or failed where failure was not expected. */
public class ShellException extends RuntimeException {
    public ShellException(String message) {
        super(message);
    }

    public ShellException(String message, Throwable cause) {
        super(message, cause);
    }
}
