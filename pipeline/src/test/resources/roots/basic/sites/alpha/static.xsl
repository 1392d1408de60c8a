<?xml version="1.0" encoding="UTF-8"?>
<!-- A static variable is evaluated when the stylesheet compiles: it must be confined like any read. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
  <xsl:variable name="secret" static="yes" select="unparsed-text('file:///etc/passwd')"/>
  <xsl:template match="/">
    <rsp:response><rsp:body method="text"><xsl:value-of select="$secret"/></rsp:body></rsp:response>
  </xsl:template>
</xsl:stylesheet>
