<?xml version="1.0" encoding="UTF-8"?>
<!-- Pages for the page cache tests: each shows what it read, so a test can tell a fresh page from an old one. -->
<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:req="urn:arno:request" xmlns:rsp="urn:arno:response"
                exclude-result-prefixes="#all">

  <xsl:variable name="filler" select="string-join((1 to 200) ! 'filler text that compresses well', ' ')"/>

  <xsl:template match="/" mode="file">
    <xsl:variable name="name" select="req:request/req:route/req:variable[@name = 'name']"/>
    <rsp:response>
      <rsp:body method="html">
        <html><body>
          <p id="title"><xsl:value-of select="doc('content:/docs/' || $name || '.xml')/doc/title"/></p>
          <p id="p"><xsl:value-of select="req:request/req:parameters/req:parameter[@name = 'p']/req:value"/></p>
          <p id="lang"><xsl:value-of select="req:request/req:headers/req:header[@name = 'accept-language']"/></p>
          <p id="filler"><xsl:value-of select="$filler"/></p>
        </body></html>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="stored">
    <xsl:variable name="name" select="req:request/req:route/req:variable[@name = 'name']"/>
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="doc('store:/docs/' || $name || '.xml')/doc/title"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- A body by reference: /binary/store/x.png is store:/docs/x.png, /binary/content/x.png content:/docs/x.png. -->
  <xsl:template match="/" mode="binary">
    <xsl:variable name="v" select="req:request/req:route/req:variable"/>
    <rsp:response>
      <rsp:body src="{$v[@name = 'scheme']}:/docs/{$v[@name = 'name']}"/>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="lookup" xmlns:store="urn:arno:store">
    <xsl:variable name="code" select="req:request/req:route/req:variable[@name = 'code']"/>
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="sort(store:lookup('code', string($code))/title)" separator=","/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="listing">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="sort(collection('store:/docs/') ! doc/title)" separator=","/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="plain">
    <rsp:response>
      <rsp:body method="text">plain</rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="big">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="$filler"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="cookie">
    <rsp:response>
      <rsp:cookie name="seen" value="yes"/>
      <rsp:body method="text">cookie</rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="nostore">
    <rsp:response>
      <rsp:header name="Cache-Control">no-store</rsp:header>
      <rsp:body method="text">secret</rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- Pages that show what they read of the request, for routes that list nothing under vary. -->
  <xsl:template match="/" mode="echo-cookie">
    <rsp:response>
      <rsp:body method="text">session: <xsl:value-of select="(req:request/req:cookies/req:cookie[@name = 'session'], 'none')[1]"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="echo-auth">
    <rsp:response>
      <rsp:body method="text">user: <xsl:value-of select="(req:request/req:headers/req:header[@name = 'authorization'], 'anonymous')[1]"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="echo-signed">
    <rsp:response>
      <rsp:body method="text"><xsl:value-of select="if (req:request/req:cookies/req:cookie[@name = 'session']) then 'sign out' else 'sign in'"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <!-- The classic poisoning: an absolute link built from the forwarded host, else the Host the client named. -->
  <xsl:template match="/" mode="echo-host">
    <xsl:variable name="r" select="req:request"/>
    <xsl:variable name="host" select="($r/req:headers/req:header[@name = 'x-forwarded-host'], $r/@host || ':' || $r/@port)[1]"/>
    <rsp:response>
      <rsp:body method="html"><html><body><a id="home" href="http://{$host}/c/echo/host">home</a></body></html></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="echo-lang">
    <rsp:response>
      <rsp:body method="text">language: <xsl:value-of select="(req:request/req:headers/req:header[@name = 'accept-language'], 'default')[1]"/></rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template match="/" mode="missing">
    <rsp:response status="404">
      <rsp:body method="text">missing</rsp:body>
    </rsp:response>
  </xsl:template>
</xsl:stylesheet>
