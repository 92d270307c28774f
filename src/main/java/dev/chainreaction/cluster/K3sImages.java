package dev.chainreaction.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.PullResponseItem;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * Whether a k3s cell can run here: its node image is present locally or can be pulled. A pull is tried for
 * {@link #PULL_LIMIT} at most; a registry that answers within it counts as pullable even if the pull goes on.
 * When the image cannot be had, the reason is what a report prints for the cell (NOT RUN).
 */
public final class K3sImages {
    public static final Duration PULL_LIMIT = Duration.ofSeconds(20);
    private static final Pattern DOCKER_MESSAGE = Pattern.compile("\\{\"message\":\"((?:[^\"\\\\]|\\\\.)*)\"}");

    private K3sImages() {
    }

    public enum State { PRESENT, PULLED, PULLING, UNAVAILABLE }

    /** {@code reason} is empty exactly when the image can be used. */
    public record Availability(String image, State state, Optional<String> reason) {
        public boolean available() {
            return state != State.UNAVAILABLE;
        }

        /** Throws {@link UnavailableException} with the reason when the image cannot be had. */
        public Availability orThrow() {
            if (!available()) {
                throw new UnavailableException(reason.orElseThrow());
            }
            return this;
        }
    }

    /** A k3s cell cannot run: its images cannot be had here. The message is the reason, as reports print it. */
    public static final class UnavailableException extends RuntimeException {
        public UnavailableException(String reason) {
            super(reason);
        }
    }

    /** The engine's view of an image, narrow enough to stand in for in tests. */
    interface Registry {
        /** Throws when the engine cannot be asked at all. */
        boolean presentLocally(String image);

        Pull pull(String image, Duration limit);
    }

    /** How a pull attempt ended within its limit. */
    sealed interface Pull {
        record Done() implements Pull {
        }

        /** The registry answered (layers are coming) but the pull had not finished within the limit. */
        record StillPulling() implements Pull {
        }

        record Failed(String error) implements Pull {
        }

        record NoAnswer() implements Pull {
        }
    }

    public static Availability availability(String image) {
        return availability(image, new DockerRegistry(), PULL_LIMIT);
    }

    static Availability availability(String image, Registry registry, Duration limit) {
        boolean present;
        try {
            present = registry.presentLocally(image);
        } catch (RuntimeException e) {
            return unavailable(image, "image " + image + " cannot be checked: no Docker engine answered (" + oneLine(e) + ")");
        }
        if (present) {
            return new Availability(image, State.PRESENT, Optional.empty());
        }
        Pull pull = registry.pull(image, limit);
        if (pull instanceof Pull.Done) {
            return new Availability(image, State.PULLED, Optional.empty());
        }
        if (pull instanceof Pull.StillPulling) {
            return new Availability(image, State.PULLING, Optional.empty());
        }
        String why = pull instanceof Pull.Failed f ? f.error()
                : "no answer from the registry within " + limit.toSeconds() + "s";
        return unavailable(image, "image " + image + " is not present locally and cannot be pulled: " + why);
    }

    /** "Status 500: {"message":"Get \"https://...\": dial tcp ..."}" → the daemon's message alone, on one line. */
    static String dockerError(String message) {
        if (message == null || message.isBlank()) {
            return "(no message)";
        }
        Matcher m = DOCKER_MESSAGE.matcher(message);
        String text = m.find() ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : message;
        return text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static Availability unavailable(String image, String reason) {
        return new Availability(image, State.UNAVAILABLE, Optional.of(reason));
    }

    private static String oneLine(Throwable e) {
        return dockerError(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }

    /** The Docker engine Testcontainers talks to. */
    static final class DockerRegistry implements Registry {
        @Override
        public boolean presentLocally(String image) {
            DockerClient docker = DockerClientFactory.instance().client();
            try {
                docker.inspectImageCmd(image).exec();
                return true;
            } catch (NotFoundException e) {
                return false;
            }
        }

        @Override
        public Pull pull(String image, Duration limit) {
            DockerImageName name = DockerImageName.parse(image);
            String[] error = new String[1];
            boolean[] answered = new boolean[1];
            ResultCallback.Adapter<PullResponseItem> callback = new ResultCallback.Adapter<>() {
                @Override
                public void onNext(PullResponseItem item) {
                    answered[0] = true;
                    if (item.getErrorDetail() != null || item.getError() != null) {
                        error[0] = item.getErrorDetail() != null ? item.getErrorDetail().getMessage() : item.getError();
                    }
                }

                @Override
                public void onError(Throwable throwable) {
                    error[0] = oneLine(throwable);
                    super.onError(throwable);
                }
            };
            try (callback) {
                DockerClientFactory.instance().client().pullImageCmd(name.getUnversionedPart())
                        .withTag(name.getVersionPart()).exec(callback);
                boolean done = callback.awaitCompletion(limit.toMillis(), TimeUnit.MILLISECONDS);
                if (error[0] != null) {
                    return new Pull.Failed(dockerError(error[0]));
                }
                if (done) {
                    return new Pull.Done();
                }
                return answered[0] ? new Pull.StillPulling() : new Pull.NoAnswer();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Pull.Failed("interrupted while pulling");
            } catch (IOException | RuntimeException e) {
                return new Pull.Failed(error[0] != null ? dockerError(error[0]) : oneLine(e));
            }
        }
    }
}
