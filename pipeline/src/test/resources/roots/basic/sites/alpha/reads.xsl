<?xml version="1.0" encoding="UTF-8"?>
<!--
  Everything a stylesheet can read, one mode each, for the case files: the route variable
  "what" names the read (see the read mode), and the query parameter "uri" what to read.
-->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response"
                exclude-result-prefixes="#all">

  <xsl:template match="/" mode="read">
    <xsl:variable name="what" select="req:request/req:route/req:variable[@name = 'what']"/>
    <xsl:variable name="uri" select="string(req:request/req:parameters/req:parameter[@name = 'uri']/req:value)"/>
    <rsp:response>
      <rsp:body method="xml" omit-xml-declaration="true">
        <read what="{$what}">
          <xsl:choose>
            <xsl:when test="$what = 'doc'"><xsl:value-of select="doc($uri)"/></xsl:when>
            <xsl:when test="$what = 'document'"><xsl:value-of select="document($uri)"/></xsl:when>
            <xsl:when test="$what = 'source-document'">
              <xsl:source-document href="{$uri}" streamable="no"><xsl:value-of select="."/></xsl:source-document>
            </xsl:when>
            <xsl:when test="$what = 'text'"><xsl:value-of select="unparsed-text($uri)"/></xsl:when>
            <xsl:when test="$what = 'json'"><xsl:value-of select="serialize(json-doc($uri), map {'method': 'json'})"/></xsl:when>
            <xsl:when test="$what = 'collection'"><xsl:value-of select="count(collection($uri))"/></xsl:when>
            <xsl:when test="$what = 'uri-collection'"><xsl:value-of select="count(uri-collection($uri))"/></xsl:when>
            <xsl:when test="$what = 'environment'"><xsl:value-of select="count(available-environment-variables())"/></xsl:when>
          </xsl:choose>
        </read>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="rest">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="req:request/req:route/req:variable[@name = 'rest']"/></rsp:body>
    </rsp:response>
  </xsl:template>

</xsl:stylesheet>
