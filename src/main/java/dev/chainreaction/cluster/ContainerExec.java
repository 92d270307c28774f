package dev.chainreaction.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.ExecCreateCmdResponse;
import com.github.dockerjava.api.model.Frame;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.images.builder.Transferable;

/**
 * docker exec with exit status and separate stdout/stderr. Standard input is copied into the container as a
 * file first (the Docker API's attached stdin is unreliable to close), then redirected and removed.
 */
final class ContainerExec {
    private static final Duration LIMIT = Duration.ofMinutes(3);

    private ContainerExec() {
    }

    static ExecResult run(GenericContainer<?> container, List<String> argv, String stdin) {
        long start = System.nanoTime();
        List<String> cmd = argv;
        if (stdin != null) {
            // Not under /run or /tmp: docker cp writes the container's root filesystem, not its tmpfs mounts.
            String path = "/opt/chainreaction-stdin-" + UUID.randomUUID();
            container.copyFileToContainer(Transferable.of(stdin.getBytes(StandardCharsets.UTF_8)), path);
            cmd = new ArrayList<>(List.of("sh", "-c", "\"$@\" < " + path + "; rc=$?; rm -f " + path + "; exit $rc", "sh"));
            cmd.addAll(argv);
        }
        DockerClient docker = DockerClientFactory.instance().client();
        ExecCreateCmdResponse exec = docker.execCreateCmd(container.getContainerId())
                .withCmd(cmd.toArray(String[]::new)).withAttachStdout(true).withAttachStderr(true).exec();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (ResultCallback.Adapter<Frame> callback = new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Frame frame) {
                switch (frame.getStreamType()) {
                    case STDERR -> err.writeBytes(frame.getPayload());
                    default -> out.writeBytes(frame.getPayload());
                }
            }
        }) {
            docker.execStartCmd(exec.getId()).exec(callback);
            if (!callback.awaitCompletion(LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new ShellException("timed out after " + LIMIT.toMinutes() + "m: docker exec "
                        + container.getContainerName() + " " + String.join(" ", argv));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShellException("interrupted: docker exec " + String.join(" ", argv), e);
        } catch (java.io.IOException e) {
            throw new ShellException("docker exec failed: " + e.getMessage(), e);
        }
        Long exit = docker.inspectExecCmd(exec.getId()).exec().getExitCodeLong();
        return new ExecResult(argv, exit == null ? -1 : exit.intValue(), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8), Duration.ofNanos(System.nanoTime() - start));
    }
}
