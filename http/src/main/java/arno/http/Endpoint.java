package arno.http;

import jakarta.servlet.Filter;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A servlet with the filters that must stand in front of it (its {@link AuthFilter}, a gate),
 * mounted together so that one is never served without the others: the filters are mapped to the
 * servlet's name, in order, so they see exactly its requests (not those of another servlet under
 * the same path, such as {@code /_arno/metrics} beside the console at {@code /_arno/*}).
 *
 * @param servlet what answers
 * @param filters run in order before it
 */
public record Endpoint(HttpServlet servlet, List<Filter> filters) {
    public Endpoint {
        filters = List.copyOf(filters);
    }

    public static Endpoint of(HttpServlet servlet, Filter... filters) {
        return new Endpoint(servlet, List.of(filters));
    }

    /** This endpoint with {@code filter} run before its own filters. */
    public Endpoint behind(Filter filter) {
        List<Filter> all = new ArrayList<>(filters.size() + 1);
        all.add(filter);
        all.addAll(filters);
        return new Endpoint(servlet, all);
    }

    /**
     * Mounts it on an embedded Tomcat's context as {@code name} at {@code pattern} (e.g.
     * {@code /store/*}). With filters, before the context starts: Tomcat never calls a filter added
     * to a started context, and the servlet would answer without it (ours then refuse everything).
     *
     * @throws IllegalStateException when there are filters and the context has started
     */
    public void mount(Context context, String name, String pattern) {
        if (!filters.isEmpty() && context.getState().isAvailable()) {
            throw new IllegalStateException(name + " has filters and must be mounted before the server serves"
                    + " (ArnoServer.bind, mount, serve), not after");
        }
        Tomcat.addServlet(context, name, servlet);
        context.addServletMappingDecoded(pattern, name);
        for (int i = 0; i < filters.size(); i++) {
            FilterDef def = new FilterDef();
            def.setFilterName(filterName(name, i));
            def.setFilter(filters.get(i));
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName(filterName(name, i));
            map.addServletName(name);
            context.addFilterMap(map);
        }
    }

    /** Mounts it on a servlet container's context while it initialises (a listener's contextInitialized: the WAR). */
    public void mount(ServletContext context, String name, String pattern) {
        context.addServlet(name, servlet).addMapping(pattern);
        for (int i = 0; i < filters.size(); i++) {
            context.addFilter(filterName(name, i), filters.get(i)).addMappingForServletNames(null, true, name);
        }
    }

    private static String filterName(String servlet, int i) {
        return servlet + "-filter-" + i;
    }
}
