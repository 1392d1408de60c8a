<?xml version="1.0" encoding="UTF-8"?>
<!-- A filter: copies req:request and appends a greeting. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:req="urn:arno:request" xmlns:msg="urn:arno:message">
  <xsl:mode on-no-match="shallow-copy"/>
  <xsl:template match="req:request">
    <xsl:copy>
      <xsl:apply-templates select="@*, node()"/>
      <msg:attribute name="greeting">Hello, <xsl:value-of select="req:route/req:variable[@name = 'name']"/></msg:attribute>
    </xsl:copy>
  </xsl:template>
</xsl:stylesheet>
