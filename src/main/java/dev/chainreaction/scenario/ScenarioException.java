package dev.chainreaction.scenario;

/** A scenario file that cannot be used; the message names the file, the field and what is allowed. */
public class ScenarioException extends RuntimeException {
    public ScenarioException(String message) {
        super(message);
    }
}
