<?xml version="1.0" encoding="UTF-8"?>
<!-- xsl:result-document would write a file on the server: refused (at compile time, and at run time if it got that far). -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:rsp="urn:arno:response" exclude-result-prefixes="#all">
  <xsl:template match="/">
    <xsl:result-document href="file:///tmp/arno-result-document-test.xml"><x/></xsl:result-document>
    <rsp:response><rsp:body method="text">written</rsp:body></rsp:response>
  </xsl:template>
</xsl:stylesheet>
