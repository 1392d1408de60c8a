<?xml version="1.0" encoding="UTF-8"?>
<!-- Writes two result documents to the store, then stops with xsl:message terminate="yes":
     nothing of the input may be stored (StoreTargetsTest). -->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns="http://www.w3.org/1999/xhtml"
    xmlns:atom="http://www.w3.org/2005/Atom"
    exclude-result-prefixes="atom">

  <xsl:output method="xml" indent="no"/>

  <xsl:template match="/article">
    <html><body><h1><xsl:value-of select="title"/></h1></body></html>
    <xsl:result-document href="{@id}.atom">
      <atom:entry><atom:title>replaced</atom:title></atom:entry>
    </xsl:result-document>
    <xsl:result-document href="b0002.xhtml">
      <html><body><p>a sibling</p></body></html>
    </xsl:result-document>
    <xsl:message terminate="yes" error-code="Q{{urn:test}}stop"><stopped id="{@id}"/></xsl:message>
  </xsl:template>
</xsl:stylesheet>
