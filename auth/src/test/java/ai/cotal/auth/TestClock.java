package ai.cotal.auth;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/** A UTC clock whose time a test controls: it reads the epoch millisecond from {@code millis}. */
public final class TestClock extends Clock {
    private final LongSupplier millis;

    public TestClock(LongSupplier millis) {
        this.millis = millis;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.getAsLong());
    }
}
