<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:req="urn:arno:request"
    xmlns:rsp="urn:arno:response" xmlns:msg="urn:arno:message" xmlns:err="urn:arno:error" exclude-result-prefixes="#all">
  <xsl:template match="/" mode="fail">
    <xsl:sequence select="error(QName('urn:test', 'boom'), 'it went wrong')"/>
  </xsl:template>
  <!-- The error page: the err:error it received, as it received it. -->
  <xsl:template match="/" mode="error">
    <xsl:variable name="e" select="req:request/msg:attribute[@name = 'error']/err:error"/>
    <rsp:response status="{$e/@status}"><rsp:body method="xml"><xsl:copy-of select="$e" copy-namespaces="no"/></rsp:body></rsp:response>
  </xsl:template>
</xsl:stylesheet>
