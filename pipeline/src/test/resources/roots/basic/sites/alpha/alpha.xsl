<?xml version="1.0" encoding="UTF-8"?>
<!-- Site alpha: uses the shared package, overrides its brand, one mode per test route. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema"
                xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response"
                xmlns:msg="urn:arno:message" xmlns:err="urn:arno:error"
                xmlns:fn="http://www.w3.org/2005/xpath-functions"
                exclude-result-prefixes="#all">
  <xsl:use-package name="urn:test:base" package-version="*">
    <xsl:override>
      <xsl:variable name="brand" as="xs:string" select="'Alpha'"/>
    </xsl:override>
  </xsl:use-package>


  <xsl:template match="/" mode="hello">
    <rsp:response status="200">
      <rsp:header name="X-Arno-Test">hello</rsp:header>
      <rsp:cookie name="seen" value="yes" path="/alpha" http-only="true" max-age="60"/>
      <rsp:body method="html">
        <xsl:call-template name="page">
          <xsl:with-param name="content">
            <p id="greeting"><xsl:value-of select="req:request/msg:attribute[@name = 'greeting']"/></p>
            <p id="stamp"><xsl:value-of select="req:request/msg:attribute[@name = 'stamp']"/></p>
            <p id="colour"><xsl:value-of select="req:request/req:site/req:param[@name = 'colour']"/></p>
          </xsl:with-param>
        </xsl:call-template>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="mix">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="req:request/msg:attribute[@name = 'square']"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="moved">
    <rsp:response status="301">
      <rsp:redirect location="hello/moved"/>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="cond">
    <rsp:response>
      <rsp:validators etag="v42" last-modified="2026-01-02T03:04:05Z"/>
      <rsp:body method="text">conditional</rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="json">
    <rsp:response>
      <rsp:body method="json">
        <fn:map>
          <fn:string key="site"><xsl:value-of select="req:request/req:site/@name"/></fn:string>
          <fn:number key="answer">42</fn:number>
        </fn:map>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="echo">
    <rsp:response>
      <rsp:body method="xml" omit-xml-declaration="true">
        <echo kind="{req:request/req:body/@kind}"><xsl:copy-of select="req:request/req:body/*"/></echo>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- A filter that reads a document; the template reads it again: the same tree. -->
  <xsl:template match="/" mode="remember">
    <xsl:variable name="doc" select="doc('content:/docs/' || req:request/req:route/req:variable[@name = 'name'] || '.xml')"/>
    <xsl:copy select="req:request">
      <xsl:copy-of select="@*, node()"/>
      <msg:attribute name="first-id"><xsl:value-of select="generate-id($doc)"/></msg:attribute>
    </xsl:copy>
  </xsl:template>

  <xsl:template match="/" mode="docs">
    <xsl:variable name="doc" select="doc('content:/docs/' || req:request/req:route/req:variable[@name = 'name'] || '.xml')"/>
    <rsp:response>
      <rsp:body method="xml" omit-xml-declaration="true">
        <docs same="{req:request/msg:attribute[@name = 'first-id'] = generate-id($doc)}"
              count="{count(collection('content:/docs/'))}">
          <xsl:copy-of select="$doc/doc/title"/>
        </docs>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="latin">
    <rsp:response>
      <rsp:body method="text" encoding="ISO-8859-1">café</rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="xhtml">
    <rsp:response>
      <rsp:body method="xhtml"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><br/></body></html></rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- Store snapshot test: read before and after another writer commits. -->
  <xsl:template match="/" mode="store-first">
    <xsl:copy select="req:request">
      <xsl:copy-of select="@*, node()"/>
      <msg:attribute name="first"><xsl:value-of select="doc('store:/docs/a.xml')/doc/title"/></msg:attribute>
    </xsl:copy>
  </xsl:template>

  <xsl:template match="/" mode="store-second">
    <rsp:response>
      <rsp:body method="xml" omit-xml-declaration="true">
        <stored first="{req:request/msg:attribute[@name = 'first']}"
                second="{doc('store:/docs/a.xml')/doc/title}"
                count="{count(collection('store:/docs/'))}"/>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="fail">
    <xsl:sequence select="error(QName('urn:test', 'boom'), 'it went wrong')"/>
  </xsl:template>

  <xsl:template match="/" mode="message">
    <xsl:message>note <b>bold</b></xsl:message>
    <rsp:response><rsp:body method="text">said</rsp:body></rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="files">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="unparsed-text('content:/' || req:request/req:parameters/req:parameter[@name = 'path']/req:value)"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="error">
    <xsl:variable name="e" select="req:request/msg:attribute[@name = 'error']/err:error"/>
    <rsp:response status="{$e/@status}">
      <rsp:body method="html">
        <xsl:call-template name="page">
          <xsl:with-param name="content">
            <p id="status"><xsl:value-of select="$e/@status"/></p>
            <p id="error-id"><xsl:value-of select="$e/@id"/></p>
            <p id="message"><xsl:value-of select="$e/err:message"/></p>
            <p id="where"><xsl:value-of select="$e/err:location/@uri"/>:<xsl:value-of select="$e/err:location/@line"/></p>
            <p id="code"><xsl:value-of select="$e/@processor-code"/></p>
            <p id="error-code"><xsl:value-of select="$e/@code"/></p>
          </xsl:with-param>
        </xsl:call-template>
      </rsp:body>
    </rsp:response>
  </xsl:template>
</xsl:stylesheet>
