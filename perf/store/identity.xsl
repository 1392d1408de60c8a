<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- Identity-like: every node visited by template rules; titles rewritten so the output is
       not a byte copy. Principal output streams to the serializer; the source is the stored tree. -->
  <xsl:mode on-no-match="shallow-copy"/>
  <xsl:template match="title">
    <title length="{string-length(.)}"><xsl:value-of select="upper-case(.)"/></title>
  </xsl:template>
</xsl:stylesheet>
