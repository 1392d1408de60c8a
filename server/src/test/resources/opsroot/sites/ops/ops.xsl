<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response"
                exclude-result-prefixes="#all">

  <xsl:variable name="line" select="string-join((1 to 10) ! 'text that compresses well', ' ')"/>

  <!-- A filter that passes req:request on: the page is then the second stage of two. -->
  <xsl:template match="/" mode="pass">
    <xsl:copy-of select="."/>
  </xsl:template>

  <xsl:template match="/" mode="echo">
    <xsl:variable name="r" select="req:request"/>
    <rsp:response>
      <rsp:body method="xml">
        <echo id="{$r/@id}" scheme="{$r/@scheme}" host="{$r/@host}" port="{$r/@port}"
              remote-address="{$r/@remote-address}" url="{$r/@url}"/>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="page">
    <xsl:variable name="n" select="(req:request/req:parameters/req:parameter[@name = 'n']/req:value ! xs:integer(.), 100)[1]"
                  xmlns:xs="http://www.w3.org/2001/XMLSchema"/>
    <rsp:response>
      <rsp:body method="html">
        <html><body>
          <xsl:for-each select="1 to $n"><p><xsl:value-of select="."/>: <xsl:value-of select="$line"/></p></xsl:for-each>
        </body></html>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="xml">
    <rsp:response>
      <rsp:header name="Vary">Accept-Language</rsp:header>
      <rsp:validators etag="v1"/>
      <rsp:body method="xml">
        <items><xsl:for-each select="1 to 100"><item n="{.}"><xsl:value-of select="$line"/></item></xsl:for-each></items>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="png">
    <rsp:response>
      <rsp:body method="text" media-type="image/png"><xsl:value-of select="(1 to 100) ! $line"/></rsp:body>
    </rsp:response>
  </xsl:template>
</xsl:stylesheet>
