<?xml version="1.0" encoding="UTF-8"?>
<!-- Site beta: the shared package as it is, chosen by host name. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
  <xsl:use-package name="urn:test:base" package-version="*"/>
  <xsl:template match="/">
    <rsp:response>
      <rsp:body method="html">
        <xsl:call-template name="page">
          <xsl:with-param name="content"><p id="site">beta</p></xsl:with-param>
        </xsl:call-template>
      </rsp:body>
    </rsp:response>
  </xsl:template>
</xsl:stylesheet>
