/** An embedder of the plane on the module path, without Micrometer (ModulePathWithoutMicrometerBrokerTest). */
module cotal.embedder {
    requires ai.cotal.auth;
}
