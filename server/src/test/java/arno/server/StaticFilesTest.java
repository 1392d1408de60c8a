package arno.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StaticFilesTest {
    @Test
    void fingerprintedNamesAreKeptForAYearOthersRevalidated() {
        assertThat(StaticFiles.cacheControl("site.3f9a2c1e.css")).isEqualTo(StaticFiles.IMMUTABLE);
        assertThat(StaticFiles.cacheControl("app-0123456789abcdef.js")).isEqualTo(StaticFiles.IMMUTABLE);
        assertThat(StaticFiles.cacheControl("site.css")).isEqualTo(StaticFiles.REVALIDATE);
        assertThat(StaticFiles.cacheControl("logo.2024.png")).as("a year is not a fingerprint").isEqualTo(StaticFiles.REVALIDATE);
        assertThat(StaticFiles.cacheControl("3f9a2c1e")).as("no extension").isEqualTo(StaticFiles.REVALIDATE);
    }
}
