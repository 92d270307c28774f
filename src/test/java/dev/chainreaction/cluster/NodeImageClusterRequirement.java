package dev.chainreaction.cluster;

import org.junit.jupiter.api.Assumptions;

/**
 * The node image these tests boot. In CI (CI=true) a missing image is a failure, never a skip; elsewhere a plain
 * "mvn test" without the image skips with the reason and the command that builds it.
 */
final class NodeImageClusterRequirement {
    private NodeImageClusterRequirement() {
    }

    static String image() {
        try {
            return NodeImageCluster.configuredImage();
        } catch (IllegalStateException e) {
            if (System.getenv("CI") != null) {
                throw e;
            }
            Assumptions.abort(e.getMessage());
            throw e;
        }
    }
}
