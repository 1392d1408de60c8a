<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <!-- Deep copies: the NodeInfo.copy path, with and without namespace copying. -->
  <xsl:template match="/">
    <out>
      <all><xsl:copy-of select="node()"/></all>
      <lean><xsl:copy-of select="/*/*" copy-namespaces="no"/></lean>
      <xsl:for-each select="//*[@*][position() le 5]">
        <attrs><xsl:copy-of select="@*"/></attrs>
      </xsl:for-each>
    </out>
  </xsl:template>
</xsl:stylesheet>
