<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:template match="/">
    <out><xsl:value-of select="1 +"/></out>
  </xsl:template>
  <xsl:template match="*" mode="m">
    <xsl:no-such-instruction/>
  </xsl:template>
</xsl:stylesheet>
