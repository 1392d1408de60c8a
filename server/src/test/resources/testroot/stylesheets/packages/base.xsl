<?xml version="1.0" encoding="UTF-8"?>
<!-- A shared package for the HTTP tests: a page layout and a brand that sites override. -->
<xsl:package name="urn:test:base" package-version="1.0" version="3.0"
             xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
             xmlns:xs="http://www.w3.org/2001/XMLSchema"
             exclude-result-prefixes="#all">
  <xsl:variable name="brand" as="xs:string" select="'Base'" visibility="public"/>

  <xsl:template name="page" visibility="public">
    <xsl:param name="content"/>
    <html>
      <head><title><xsl:value-of select="$brand"/></title></head>
      <body>
        <h1 id="brand"><xsl:value-of select="$brand"/></h1>
        <xsl:copy-of select="$content"/>
      </body>
    </html>
  </xsl:template>
</xsl:package>
