<?xml version="1.0" encoding="UTF-8"?>
<!-- Two compile errors: the compiler's reasons must both reach the user, each with its line. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:template match="/">
    <xsl:value-of select="1 +"/>
    <xsl:value-of select="$undeclared"/>
  </xsl:template>
</xsl:stylesheet>
