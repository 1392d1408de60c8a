<?xml version="1.0" encoding="UTF-8"?>
<!--
  urn:arno:templates:error - the default error page, and the pieces that
  site error templates reuse.

  The server compiles this file twice: as a shared package (so that sites can
  use the public mode `error` and the named templates), and as the error
  template of sites without one, where `error` is the default mode.

  Input: req:request with msg:attribute name="error" holding err:error, as
  arno.xml.ErrorXml writes it (schema arno/schema/error.xsd in arno-xml):
  @code (the catalogue name, e.g. stage-error), @status, @id, and when known
  @processor-code (e.g. XTDE0640), err:message, err:location (uri, line,
  column, route, stage, step) and err:detail (further reasons, e.g. every
  compiler message, each with its own err:location). Output: rsp:response
  with that status. In development mode (req:request/@development) the page
  shows every detail; otherwise only the status, a short message and the
  error id, which names the log entry with the details. (In production the
  server leaves a server error's location and reasons out of err:error too.)
-->
<xsl:package name="urn:arno:templates:error" package-version="1.0.0" version="3.0"
    default-mode="error"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:req="urn:arno:request"
    xmlns:rsp="urn:arno:response"
    xmlns:msg="urn:arno:message"
    xmlns:err="urn:arno:error"
    xmlns:r="urn:arno:templates:response"
    xmlns:e="urn:arno:templates:error"
    exclude-result-prefixes="#all">

  <xsl:use-package name="urn:arno:templates:response" package-version="1.*"/>

  <xsl:mode name="error" visibility="public" on-no-match="shallow-skip"/>

  <xsl:template match="/" mode="error">
    <xsl:apply-templates select="req:request" mode="error"/>
  </xsl:template>

  <xsl:template match="req:request" mode="error">
    <xsl:variable name="error" as="element(err:error)?" select="r:error(.)"/>
    <xsl:variable name="status" as="xs:integer" select="e:status($error)"/>
    <xsl:variable name="title" select="$status || ' ' || r:status-text($status)"/>
    <rsp:response status="{$status}">
      <rsp:body method="html">
        <html lang="en">
          <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title><xsl:value-of select="$title"/></title>
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#222}
dt{font-weight:600}pre{white-space:pre-wrap;background:#f4f4f4;padding:.75rem}</style>
          </head>
          <body>
            <h1><xsl:value-of select="$title"/></h1>
            <xsl:call-template name="e:summary">
              <xsl:with-param name="error" select="$error"/>
            </xsl:call-template>
            <xsl:call-template name="e:details">
              <xsl:with-param name="request" select="."/>
            </xsl:call-template>
          </body>
        </html>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- The status of an error: err:error/@status if it is an HTTP error status, else 500. -->
  <xsl:function name="e:status" as="xs:integer" visibility="public">
    <xsl:param name="error" as="element(err:error)?"/>
    <xsl:variable name="s" select="$error/@status[. castable as xs:integer] ! xs:integer(.)"/>
    <xsl:sequence select="if ($s ge 400 and $s le 599) then $s else 500"/>
  </xsl:function>

  <!-- The short message and the error id: shown in production too. -->
  <xsl:template name="e:summary" visibility="public">
    <xsl:param name="error" as="element(err:error)?"/>
    <p class="error-message">
      <xsl:value-of select="($error/err:message[normalize-space()], r:status-text(e:status($error)))[1]"/>
    </p>
    <xsl:if test="$error/@id">
      <p class="error-id">Error id: <code><xsl:value-of select="$error/@id"/></code></p>
    </xsl:if>
  </xsl:template>

  <!-- Where it went wrong: development mode only, nothing otherwise. -->
  <xsl:template name="e:details" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:variable name="error" select="r:error($request)"/>
    <xsl:if test="r:development($request)">
      <section class="error-details">
        <h2>Details</h2>
        <dl>
          <dt>URL</dt><dd><code><xsl:value-of select="$request/@method, $request/@url"/></code></dd>
          <xsl:for-each select="$error/(@code, @processor-code), $error/err:location/(@uri, @line, @column, @route, @stage, @step)">
            <dt><xsl:value-of select="local-name()"/></dt>
            <dd><code><xsl:value-of select="."/></code></dd>
          </xsl:for-each>
        </dl>
        <xsl:if test="$error/err:message">
          <pre><xsl:value-of select="$error/err:message"/></pre>
        </xsl:if>
        <xsl:if test="$error/err:detail">
          <ul class="error-reasons">
            <xsl:for-each select="$error/err:detail">
              <li class="{(@severity, 'error')[1]}">
                <xsl:value-of select="string-join((e:where(err:location), @code, err:message), ' ')"/>
              </li>
            </xsl:for-each>
          </ul>
        </xsl:if>
      </section>
    </xsl:if>
  </xsl:template>

  <!-- A location in words: "file:/x.xsl line 12 column 5:" (as arno.xml.Where writes it), or empty. -->
  <xsl:function name="e:where" as="xs:string?" visibility="public">
    <xsl:param name="location" as="element(err:location)?"/>
    <xsl:sequence select="$location[@uri or @line] ! (string-join((@uri, @line ! ('line ' || .),
        @column ! ('column ' || .)), ' ') || ':')"/>
  </xsl:function>
</xsl:package>
