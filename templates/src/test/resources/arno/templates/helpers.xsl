<?xml version="1.0" encoding="UTF-8"?>
<!-- Calls the response helpers the way site templates do; one named template per case. -->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:r="urn:arno:templates:response"
    exclude-result-prefixes="#all">
  <xsl:use-package name="urn:arno:templates:response" package-version="*"/>

  <xsl:template name="redirect">
    <xsl:sequence select="r:redirect('/journal-a/v1/', 301)"/>
  </xsl:template>
  <xsl:template name="bad-redirect">
    <xsl:sequence select="r:redirect('/x', 200)"/>
  </xsl:template>
  <xsl:template name="json">
    <xsl:sequence select="r:json(map { 'title': 'A &lt;b&gt; &quot;quoted&quot;', 'n': 3, 'list': [1, 2] })"/>
  </xsl:template>
  <xsl:template name="page">
    <rsp:response status="200" xmlns:rsp="urn:arno:response">
      <xsl:sequence select="r:header('Cache-Control', 'max-age=60'),
                            r:validators(r:etag(('ja', 'v1', 3)), xs:dateTime('2024-03-01T12:00:00+01:00'))"/>
      <rsp:body method="html"/>
    </rsp:response>
  </xsl:template>
  <xsl:template name="document">
    <xsl:sequence select="r:not-found(r:document('Gone', (), 'nothing here'))"/>
  </xsl:template>
  <xsl:template name="etags">
    <etags>
      <a><xsl:value-of select="r:etag(('ja', 'v1', 'i1'))"/></a>
      <b><xsl:value-of select="r:etag(('ja', 'v1', 'i1'))"/></b>
      <c><xsl:value-of select="r:etag(('ja', 'v1i1'))"/></c>
      <d><xsl:value-of select="r:etag(('ja', 'v1', 'i2'))"/></d>
    </etags>
  </xsl:template>
</xsl:stylesheet>
