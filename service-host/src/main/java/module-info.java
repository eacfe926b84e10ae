/**
 * The public, typed contract of the service-endpoint host: requests, results, views and the
 * client an embedder's daemon uses. See SPEC.md §13.1 and docs/service-endpoints.md.
 */
module ai.cotal.servicehost {
    requires transitive com.fasterxml.jackson.databind;
    requires transitive java.net.http;

    exports ai.cotal.servicehost;

    opens ai.cotal.servicehost to com.fasterxml.jackson.databind;
}
