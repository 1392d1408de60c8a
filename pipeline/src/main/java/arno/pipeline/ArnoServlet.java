package arno.pipeline;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** The servlet that hands every request, whatever its method, to an {@link Arno} engine. */
public final class ArnoServlet extends HttpServlet {
    private final transient Arno arno;

    public ArnoServlet(Arno arno) {
        this.arno = arno;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        arno.service(request, response);
    }
}
