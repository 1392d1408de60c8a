<?xml version="1.0" encoding="UTF-8"?>
<!-- A stored article (JATS-like) → its XHTML variant, for StoreTargetsTest. It reads the store
     itself (doc() and collection() of store: URIs, from the transformation's view) and replaces
     the article's Atom entry with a result document, committed with the principal result. -->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns="http://www.w3.org/1999/xhtml"
    xmlns:atom="http://www.w3.org/2005/Atom"
    exclude-result-prefixes="atom">

  <!-- the issue's folder, e.g. store:/journals/ja/v1/i1/ -->
  <xsl:param name="issue" required="yes"/>

  <xsl:output method="xml" indent="no"/>

  <xsl:template match="/article">
    <html>
      <head><title><xsl:value-of select="title"/></title></head>
      <body>
        <p class="journal"><xsl:value-of select="doc('store:/journals/ja.atom')/atom:entry/atom:title"/></p>
        <p class="articles"><xsl:value-of select="count(collection($issue)/article)"/></p>
        <h1><xsl:value-of select="title"/></h1>
        <xsl:for-each select="sec">
          <h2><xsl:value-of select="title"/></h2>
          <p><xsl:value-of select="p"/></p>
        </xsl:for-each>
      </body>
    </html>
    <xsl:result-document href="{@id}.atom">
      <atom:entry>
        <atom:title><xsl:value-of select="title"/></atom:title>
        <atom:summary><xsl:value-of select="count(sec)"/> sections</atom:summary>
      </atom:entry>
    </xsl:result-document>
  </xsl:template>
</xsl:stylesheet>
