<?xml version="1.0" encoding="UTF-8"?>
<!--
  urn:arno:templates:response - helpers that every template uses to answer a
  req:request with an rsp:response (see pipeline/.../schema/response.xsd).

  Compiled once per server and imported into every site's compiler. Functions
  rather than templates where the result is small (headers, validators,
  redirects): they compose in XPath. For big pages prefer writing rsp:response
  and rsp:body as literal result elements in the page template: content passed
  to a function or a template parameter is built as a temporary tree and then
  copied, which costs a second tree for every page.
-->
<xsl:package name="urn:arno:templates:response" package-version="1.0.0" version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:map="http://www.w3.org/2005/xpath-functions/map"
    xmlns:req="urn:arno:request"
    xmlns:rsp="urn:arno:response"
    xmlns:msg="urn:arno:message"
    xmlns:err="urn:arno:error"
    xmlns:r="urn:arno:templates:response"
    exclude-result-prefixes="#all">

  <!-- ===== reading the request ===== -->

  <!-- A route variable, e.g. r:variable($request, 'issue'); empty if the route has none. -->
  <xsl:function name="r:variable" as="xs:string?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="$request/req:route/req:variable[@name eq $name]/string()"/>
  </xsl:function>

  <!-- A site parameter from site.xml. -->
  <xsl:function name="r:site-param" as="xs:string?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="$request/req:site/req:param[@name eq $name]/string()"/>
  </xsl:function>

  <!-- The first value of a query or form parameter. -->
  <xsl:function name="r:parameter" as="xs:string?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="$request/req:parameters/req:parameter[@name eq $name]/req:value[1]/string()"/>
  </xsl:function>

  <!-- A request header by name, any case. -->
  <xsl:function name="r:header-value" as="xs:string?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="$request/req:headers/req:header[@name eq lower-case($name)][1]/string()"/>
  </xsl:function>

  <!-- The URL base of the site: links are r:base($request) || '/path'. -->
  <xsl:function name="r:base" as="xs:string" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:sequence select="string($request/req:site/@base)"/>
  </xsl:function>

  <xsl:function name="r:development" as="xs:boolean" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:sequence select="$request/@development = ('true', '1')"/>
  </xsl:function>

  <!-- The error an error template answers (msg:attribute name="error"), if any. -->
  <xsl:function name="r:error" as="element(err:error)?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:sequence select="$request/msg:attribute[@name eq 'error']/err:error"/>
  </xsl:function>

  <!-- ===== building the response ===== -->

  <!-- An HTML5 page with status 200. -->
  <xsl:function name="r:html" as="element(rsp:response)" visibility="public">
    <xsl:param name="page" as="node()*"/>
    <xsl:sequence select="r:html($page, 200)"/>
  </xsl:function>

  <xsl:function name="r:html" as="element(rsp:response)" visibility="public">
    <xsl:param name="page" as="node()*"/>
    <xsl:param name="status" as="xs:integer"/>
    <rsp:response status="{r:checked-status($status)}">
      <rsp:body method="html">
        <xsl:sequence select="$page"/>
      </rsp:body>
    </rsp:response>
  </xsl:function>

  <!-- A 404 page. -->
  <xsl:function name="r:not-found" as="element(rsp:response)" visibility="public">
    <xsl:param name="page" as="node()*"/>
    <xsl:sequence select="r:html($page, 404)"/>
  </xsl:function>

  <!-- A redirect: 302 Found, or the given 3xx status. -->
  <xsl:function name="r:redirect" as="element(rsp:response)" visibility="public">
    <xsl:param name="location" as="xs:string"/>
    <xsl:sequence select="r:redirect($location, 302)"/>
  </xsl:function>

  <xsl:function name="r:redirect" as="element(rsp:response)" visibility="public">
    <xsl:param name="location" as="xs:string"/>
    <xsl:param name="status" as="xs:integer"/>
    <xsl:if test="not($status = (301, 302, 303, 307, 308))">
      <xsl:sequence select="error(xs:QName('r:bad-redirect'),
          'r:redirect to ' || $location || ': status ' || $status || ' is not a redirect (301, 302, 303, 307 or 308)')"/>
    </xsl:if>
    <rsp:response status="{$status}">
      <rsp:redirect location="{$location}"/>
    </rsp:response>
  </xsl:function>

  <!-- JSON: any XDM value that the JSON output method accepts (maps, arrays, atomics). -->
  <xsl:function name="r:json" as="element(rsp:response)" visibility="public">
    <xsl:param name="value" as="item()*"/>
    <xsl:sequence select="r:json($value, 200)"/>
  </xsl:function>

  <xsl:function name="r:json" as="element(rsp:response)" visibility="public">
    <xsl:param name="value" as="item()*"/>
    <xsl:param name="status" as="xs:integer"/>
    <rsp:response status="{r:checked-status($status)}">
      <rsp:body method="json">
        <xsl:value-of select="serialize($value, map { 'method': 'json' })"/>
      </rsp:body>
    </rsp:response>
  </xsl:function>

  <xsl:function name="r:header" as="element(rsp:header)" visibility="public">
    <xsl:param name="name" as="xs:string"/>
    <xsl:param name="value" as="xs:string"/>
    <rsp:header name="{$name}">
      <xsl:value-of select="$value"/>
    </rsp:header>
  </xsl:function>

  <!--
    Cache validators: with them the response writer answers a matching
    If-None-Match or If-Modified-Since with 304 and skips the body. Pass the
    empty sequence for the one you do not have.
  -->
  <xsl:function name="r:validators" as="element(rsp:validators)?" visibility="public">
    <xsl:param name="etag" as="xs:string?"/>
    <xsl:param name="last-modified" as="xs:dateTime?"/>
    <xsl:if test="exists(($etag, $last-modified))">
      <rsp:validators>
        <xsl:if test="exists($etag)">
          <xsl:attribute name="etag" select="$etag"/>
        </xsl:if>
        <xsl:if test="exists($last-modified)">
          <xsl:attribute name="last-modified" select="adjust-dateTime-to-timezone($last-modified, xs:dayTimeDuration('PT0S'))"/>
        </xsl:if>
      </rsp:validators>
    </xsl:if>
  </xsl:function>

  <!--
    A strong entity tag for a page built from the given parts (resource ids and
    versions, site name, anything the page depends on). Polynomial string hash
    modulo the Mersenne prime 2^61-1, in base 36: XPath has no digest function
    in Saxon-HE, and a collision only costs a stale 304 if two different inputs
    of one URL collide, which at 61 bits is negligible. Each part is prefixed
    with its length so that ('ab', 'c') and ('a', 'bc') differ.
  -->
  <xsl:function name="r:etag" as="xs:string" visibility="public">
    <xsl:param name="parts" as="xs:anyAtomicType*"/>
    <xsl:variable name="hash" as="xs:integer" select="fold-left(
        string-to-codepoints(string-join($parts ! (string-length(string(.)) || ':' || .))), 7,
        function($h as xs:integer, $c as xs:integer) as xs:integer { ($h * 131 + $c) mod 2305843009213693951 })"/>
    <xsl:sequence select="'&quot;' || r:base36($hash) || '&quot;'"/>
  </xsl:function>

  <xsl:function name="r:base36" as="xs:string">
    <xsl:param name="n" as="xs:integer"/>
    <xsl:variable name="digit" select="substring('0123456789abcdefghijklmnopqrstuvwxyz', $n mod 36 + 1, 1)"/>
    <xsl:sequence select="if ($n lt 36) then $digit else r:base36($n idiv 36) || $digit"/>
  </xsl:function>

  <!-- The HTTP reason phrase of a status, for page titles. -->
  <xsl:function name="r:status-text" as="xs:string" visibility="public">
    <xsl:param name="status" as="xs:integer"/>
    <xsl:sequence select="(map {
        200: 'OK', 301: 'Moved permanently', 302: 'Found', 303: 'See other', 304: 'Not modified',
        400: 'Bad request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not found',
        405: 'Method not allowed', 406: 'Not acceptable', 408: 'Request timeout', 409: 'Conflict',
        410: 'Gone', 413: 'Content too large', 415: 'Unsupported media type', 429: 'Too many requests',
        500: 'Internal error', 501: 'Not implemented', 502: 'Bad gateway', 503: 'Service unavailable',
        504: 'Gateway timeout' }($status), if ($status ge 500) then 'Server error' else 'Error')[1]"/>
  </xsl:function>

  <xsl:function name="r:checked-status" as="xs:integer">
    <xsl:param name="status" as="xs:integer"/>
    <xsl:sequence select="if ($status ge 100 and $status le 599) then $status
        else error(xs:QName('r:bad-status'), 'HTTP status ' || $status || ' is outside 100-599')"/>
  </xsl:function>

  <!--
    A plain HTML5 document: for small pages (errors, notices); site layouts
    build their own. $head goes into <head> after <title>.
  -->
  <xsl:function name="r:document" as="element(html)" visibility="public">
    <xsl:param name="title" as="xs:string"/>
    <xsl:param name="head" as="item()*"/>
    <xsl:param name="body" as="item()*"/>
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title><xsl:value-of select="$title"/></title>
        <xsl:sequence select="$head"/>
      </head>
      <body>
        <xsl:sequence select="$body"/>
      </body>
    </html>
  </xsl:function>
</xsl:package>
