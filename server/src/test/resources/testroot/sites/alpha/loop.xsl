<?xml version="1.0" encoding="UTF-8"?>
<!-- Runaway stylesheets: one loops producing output (as a filter, or as the page itself), one hoards nodes in a variable. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:rsp="urn:arno:response">
  <xsl:template match="/">
    <xsl:call-template name="forever"/>
  </xsl:template>

  <xsl:template match="/" mode="hoard">
    <xsl:variable name="pile">
      <xsl:call-template name="forever"/>
    </xsl:variable>
    <xsl:sequence select="count($pile/*)"/>
  </xsl:template>

  <xsl:template match="/" mode="flood">
    <rsp:response>
      <rsp:body method="html">
        <html><body><xsl:call-template name="forever"/></body></html>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template name="forever">
    <xsl:param name="n" as="xs:integer" select="0"/>
    <x><xsl:value-of select="$n"/></x>
    <xsl:call-template name="forever">
      <xsl:with-param name="n" select="$n + 1"/>
    </xsl:call-template>
  </xsl:template>
</xsl:stylesheet>
