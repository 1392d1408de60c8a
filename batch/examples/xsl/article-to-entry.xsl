<?xml version="1.0" encoding="UTF-8"?>
<!-- A small article → Atom entry conversion for the tests: parameters of every kind,
     an xsl:message with element content, and an xsl:result-document per article. -->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns="http://www.w3.org/2005/Atom"
    exclude-result-prefixes="xs">

  <xsl:param name="feed" as="xs:string" select="'urn:feed:default'"/>
  <!-- a document fragment -->
  <xsl:param name="rights" as="document-node()?" select="()"/>
  <!-- a sequence -->
  <xsl:param name="categories" as="xs:string*" select="()"/>
  <xsl:param name="html" as="xs:boolean" select="false()"/>

  <xsl:output method="xml" indent="no"/>

  <xsl:template match="/article">
    <xsl:if test="not(title)">
      <xsl:message terminate="yes" error-code="Q{{urn:test}}no-title"><missing what="title" id="{@id}"/></xsl:message>
    </xsl:if>
    <xsl:message><checked id="{@id}"><sections count="{count(sec)}"/></checked></xsl:message>
    <entry>
      <id><xsl:value-of select="$feed"/>/<xsl:value-of select="@id"/></id>
      <title><xsl:value-of select="title"/></title>
      <xsl:for-each select="$categories"><category term="{.}"/></xsl:for-each>
      <xsl:if test="exists($rights)"><rights type="xhtml"><xsl:copy-of select="$rights/node()"/></rights></xsl:if>
      <summary><xsl:value-of select="count(sec)"/> sections</summary>
    </entry>
    <xsl:if test="$html">
      <xsl:result-document href="{@id}.html" method="html">
        <html><body><h1><xsl:value-of select="title"/></h1></body></html>
      </xsl:result-document>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
