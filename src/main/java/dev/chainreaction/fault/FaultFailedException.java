package dev.chainreaction.fault;

/** A fault could not be carried out as asked; the message names the fault, the node and the error. */
public class FaultFailedException extends RuntimeException {
    public FaultFailedException(String message) {
        super(message);
    }
}
