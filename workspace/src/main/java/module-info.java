/**
 * Explicit, root-relative state of a Cotal deployment: the file secret store (0600 files in 0700
 * directories, written atomically), the trust records, broker policies and the auth instance
 * identity. See SPEC.md §7.
 */
module ai.cotal.workspace {
    requires transitive ai.cotal.core;
    requires org.slf4j;
    requires jdk.security.auth; // the owning uid of a private directory (PrivateFiles)

    exports ai.cotal.workspace;

    // Closed JSON parsing binds the records of this package reflectively.
    opens ai.cotal.workspace to com.fasterxml.jackson.databind;
}
