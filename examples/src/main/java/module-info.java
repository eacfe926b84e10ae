/**
 * First programs against the SDK, written as an embedder writes them: only the exported API of
 * {@code ai.cotal.auth} (which reads {@code ai.cotal.core} and {@code ai.cotal.workspace} for its
 * callers) and jnats. No Micrometer: the optional metrics support stays off this module path. It exports nothing:
 * its programs are run ({@code java -m ai.cotal.examples/ai.cotal.examples.FirstProgram}), not called.
 */
module ai.cotal.examples {
    requires ai.cotal.auth;
}
