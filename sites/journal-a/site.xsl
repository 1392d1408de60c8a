<?xml version="1.0" encoding="UTF-8"?>
<!--
  Journal of Coastal Hydrology (journal 'ja'): the shared journal site with
  its own branding and one extra page, /authors, an index of every author.
-->
<xsl:stylesheet version="3.0" expand-text="yes"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:req="urn:arno:request"
    xmlns:j="urn:arno:journal"
    xmlns:a="urn:arno:site:journal-a"
    xmlns:map="http://www.w3.org/2005/xpath-functions/map"
    xmlns:atom="http://www.w3.org/2005/Atom"
    xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"
    exclude-result-prefixes="#all">

  <xsl:variable name="a:collation" static="yes" as="xs:string"
      select="'http://www.w3.org/2013/collation/UCA?lang=en;fallback=yes'"/>

  <xsl:use-package name="urn:arno:journal" package-version="1.*">
    <!-- The page modes become this stylesheet's entry points (site.xml names them). -->
    <xsl:accept component="mode" names="*" visibility="public"/>
    <xsl:override>
      <xsl:variable name="j:site-name" as="xs:string" select="'Journal of Coastal Hydrology'"/>
      <xsl:variable name="j:logo-text" as="xs:string" select="'JCH'"/>
      <xsl:variable name="j:tagline" as="xs:string" select="'Water at the land–sea boundary'"/>

      <xsl:template name="j:navigation">
        <xsl:param name="page" as="map(*)"/>
        <xsl:call-template name="xsl:original">
          <xsl:with-param name="page" select="$page"/>
        </xsl:call-template>
        <a href="{j:href($page, 'authors')}">Authors</a>
      </xsl:template>

      <!--
        Authors A-Z: each author once, with their articles, newest first.
        The collation is a static URI: written as an attribute value template
        it was resolved again for every group. The letter of an author is
        taken from a:surname, which builds no string.
      -->
      <xsl:template match=".[?kind eq 'authors']" mode="j:main">
        <xsl:variable name="page" select="."/>
        <h1>Authors</h1>
        <xsl:for-each-group select="?articles/atom:author" _collation="{$a:collation}"
            group-by="upper-case(substring(a:surname(atom:name), 1, 1))">
          <xsl:sort select="current-grouping-key()" _collation="{$a:collation}"/>
          <section class="letter" id="letter-{current-grouping-key()}">
            <h2>{current-grouping-key()}</h2>
            <xsl:for-each-group select="current-group()" group-by="a:sort-name(atom:name)" _collation="{$a:collation}">
              <xsl:sort select="current-grouping-key()" _collation="{$a:collation}"/>
              <h3 class="author">{current-grouping-key()}</h3>
              <ul>
                <xsl:for-each select="current-group()/..">
                  <xsl:sort select="atom:published" order="descending"/>
                  <li>
                    <a href="{j:href($page, ('v' || prism:volume, 'i' || prism:number, j:entry-article(.)))}">{atom:title}</a>
                    <span class="meta"> · Volume {string(prism:volume)}, Issue {string(prism:number)}</span>
                  </li>
                </xsl:for-each>
              </ul>
            </xsl:for-each-group>
          </section>
        </xsl:for-each-group>
      </xsl:template>
    </xsl:override>
  </xsl:use-package>

  <!-- "Given Names Surname" as "Surname, Given Names": the surname is the last word. -->
  <xsl:function name="a:sort-name" as="xs:string">
    <xsl:param name="name" as="xs:string"/>
    <xsl:variable name="words" select="tokenize(normalize-space($name), ' ')"/>
    <xsl:sequence select="string-join(($words[last()], string-join($words[position() lt last()], ' ')), ', ')"/>
  </xsl:function>

  <!-- The last word of a name: what a:sort-name begins with. -->
  <xsl:function name="a:surname" as="xs:string?">
    <xsl:param name="name" as="xs:string"/>
    <xsl:sequence select="tokenize(normalize-space($name), ' ')[last()]"/>
  </xsl:function>

  <xsl:mode name="authors" visibility="public"/>

  <!-- Every article of the journal: the journal's entry fetched to its articles (with-descendants=3). -->
  <xsl:template match="/" mode="authors">
    <xsl:variable name="page" select="j:model(req:request, 'authors', 'Authors')"/>
    <xsl:variable name="journal" select="j:content(req:request)[j:kind(.) eq 'journal']"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if (empty($journal)) then j:not-found(req:request, 'journal ' || $page?journal)
          else map:put($page, 'articles', j:children(j:children(j:children($journal))))"/>
    </xsl:call-template>
  </xsl:template>
</xsl:stylesheet>
