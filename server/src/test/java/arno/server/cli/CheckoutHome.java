package arno.server.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For tests that run {@code serve}: the checkout is the installation ({@code arno.home}), so the
 * shared packages and the default error page are found there; the property is restored after.
 */
final class CheckoutHome implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CheckoutHome.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NS).put("home", String.valueOf(System.getProperty("arno.home")));
        System.setProperty("arno.home", Path.of("..").toAbsolutePath().normalize().toString());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        String home = context.getStore(NS).get("home", String.class);
        if (home == null || home.equals("null")) System.clearProperty("arno.home");
        else System.setProperty("arno.home", home);
    }
}
