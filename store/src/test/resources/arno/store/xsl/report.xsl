<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" exclude-result-prefixes="xs">
  <!-- A report that leans on keys, numbering, grouping, sorting, generate-id and every axis. -->
  <xsl:key name="by-name" match="*" use="local-name()"/>
  <xsl:key name="by-attr" match="@*" use="string()"/>
  <xsl:template match="/">
    <report nodes="{count(//node())}" attributes="{count(//@*)}" elements="{count(//*)}"
            texts="{count(//text())}" depth="{max((//node()!count(ancestor::node()), 0))}">
      <!-- Muenchian grouping: identity of nodes across keys -->
      <xsl:for-each select="//*[generate-id() = generate-id(key('by-name', local-name())[1])]">
        <xsl:sort select="local-name()"/>
        <name local="{local-name()}" count="{count(key('by-name', local-name()))}"
              first-path="{path(.)}" ns="{namespace-uri()}"/>
      </xsl:for-each>
      <xsl:for-each-group select="//@*" group-by="name()">
        <xsl:sort select="current-grouping-key()"/>
        <attr name="{current-grouping-key()}" n="{count(current-group())}"
              distinct="{count(distinct-values(current-group()))}"
              same-value="{count(key('by-attr', string(current-group()[1])))}"/>
      </xsl:for-each-group>
      <xsl:for-each select="(//*)[position() mod 7 = 1][position() le 40]">
        <xsl:variable name="any"><xsl:number level="any" count="*|comment()"/></xsl:variable>
        <at num-any="{$any}" level="{count(ancestor::*)}"
            prec="{count(preceding::*)}" foll="{count(following::*)}"
            psib="{count(preceding-sibling::node())}" fsib="{count(following-sibling::node())}"
            lang="{lang('en')}" base="{base-uri(.)}" nsp="{string-join(sort(in-scope-prefixes(.)), ',')}">
          <xsl:number level="multiple" count="*" format="1.1"/>
          <xsl:text>|</xsl:text>
          <xsl:value-of select="substring(normalize-space(string(.)), 1, 40)"/>
        </at>
      </xsl:for-each>
      <xsl:for-each select="//text()[normalize-space()][position() le 30]">
        <xsl:sort select="string-length(.)" order="descending"/>
        <xsl:sort select="."/>
        <t len="{string-length(.)}" parent="{name(..)}"><xsl:value-of select="upper-case(substring(., 1, 20))"/></t>
      </xsl:for-each>
      <ids><xsl:value-of select="id(('c1', 'c2', 's1', 's2', 'i1', 'i2', 'i3'))!local-name()" separator=","/></ids>
      <idrefs><xsl:value-of select="idref(('c1', 'c2', 's1'))!name()" separator=","/></idrefs>
      <pis><xsl:value-of select="//processing-instruction()!(name() || '=' || .)" separator=";"/></pis>
      <comments><xsl:value-of select="//comment()" separator=";"/></comments>
    </report>
  </xsl:template>
</xsl:stylesheet>
