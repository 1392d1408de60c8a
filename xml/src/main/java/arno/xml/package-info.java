/**
 * What every Arno module shares, so that each exists once:
 * <ul>
 * <li>{@link arno.xml.ErrorCode} (the catalogue), {@link arno.xml.ArnoException} (the one error
 * type), {@link arno.xml.Where} (the one way to say where) and {@link arno.xml.ErrorXml} (the one
 * {@code err:error} writer; schema {@code arno/schema/error.xsd});</li>
 * <li>{@link arno.xml.XmlPolicy} (the one secure parser), {@link arno.xml.Outbound} (the one
 * outbound fetch policy), {@link arno.xml.FileRoots} (confinement to folders) and
 * {@link arno.xml.Access}, which installs all three on a Saxon configuration;</li>
 * <li>{@link arno.xml.DocumentStore}, the store as the pipeline sees it.</li>
 * </ul>
 * Thread rules: the policies, roots, {@link arno.xml.Access} and {@link arno.xml.Where} are immutable
 * and thread-safe. An {@link arno.xml.ArnoException} is filled in (location, details) by the code
 * that throws it, before anyone else sees it; {@link arno.xml.XmlWriter} and the readers
 * {@link arno.xml.XmlPolicy} makes or lends belong to one thread.
 */
package arno.xml;
