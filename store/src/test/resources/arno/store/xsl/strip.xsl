<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- Whitespace stripping applied by Saxon over the source tree, then a shallow-copy walk. -->
  <xsl:strip-space elements="*"/>
  <xsl:preserve-space elements="p ws title"/>
  <xsl:mode on-no-match="shallow-copy"/>
  <xsl:template match="comment()"><c><xsl:value-of select="string-length(.)"/></c></xsl:template>
  <xsl:template match="text()[not(normalize-space())]"><blank n="{string-length(.)}"/></xsl:template>
</xsl:stylesheet>
