<?xml version="1.0" encoding="UTF-8"?>
<!--
  JATS-like article → Atom entry with PRISM metadata and an XHTML content
  digest (abstract, section outline, figure and table captions, reference
  count): the kind of conversion a publishing team runs over a whole journal.
  Used by perf/batch/run.sh both through Arno's batch service and through
  Saxon's own command line, so both do exactly the same work.
-->
<xsl:stylesheet version="3.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:xlink="http://www.w3.org/1999/xlink"
    xmlns:a="urn:arno:local"
    xmlns="http://www.w3.org/2005/Atom"
    xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"
    xmlns:h="http://www.w3.org/1999/xhtml"
    exclude-result-prefixes="xs xlink a h">

  <xsl:output method="xml" indent="no" encoding="UTF-8"/>

  <xsl:param name="feed-base" as="xs:string" select="'https://journals.example.org/'"/>
  <xsl:param name="max-summary" as="xs:integer" select="400"/>

  <xsl:key name="aff" match="aff" use="@id"/>
  <xsl:key name="ref" match="ref" use="@id"/>

  <xsl:variable name="date-order" as="xs:string+" select="('year', 'month', 'day')"/>

  <xsl:function name="a:date" as="xs:date?">
    <xsl:param name="d" as="element()?"/>
    <xsl:sequence select="if (empty($d/year)) then () else xs:date(string-join((
        $d/year, format-number(xs:integer(($d/month, 1)[1]), '00'), format-number(xs:integer(($d/day, 1)[1]), '00')), '-'))"/>
  </xsl:function>

  <xsl:function name="a:name" as="xs:string">
    <xsl:param name="n" as="element(name)"/>
    <xsl:sequence select="normalize-space(string-join(($n/given-names, $n/surname), ' '))"/>
  </xsl:function>

  <xsl:template match="/article">
    <xsl:variable name="meta" select="front/article-meta"/>
    <xsl:variable name="doi" select="$meta/article-id[@pub-id-type = 'doi']"/>
    <xsl:variable name="journal" select="front/journal-meta/journal-id[@journal-id-type = 'publisher-id']"/>
    <xsl:variable name="published" select="a:date($meta/pub-date[@pub-type = 'epub'])"/>
    <entry xml:lang="{(@xml:lang, 'en')[1]}">
      <id>info:doi/<xsl:value-of select="$doi"/></id>
      <title type="text"><xsl:value-of select="normalize-space($meta/title-group/article-title)"/></title>
      <published><xsl:value-of select="$published"/>T00:00:00Z</published>
      <updated><xsl:value-of select="max(($published, $meta/history/date/a:date(.)))"/>T00:00:00Z</updated>
      <xsl:apply-templates select="$meta/contrib-group/contrib[@contrib-type = 'author']"/>
      <category scheme="urn:arno:article-type" term="{@article-type}"
                label="{$meta/article-categories/subj-group[@subj-group-type = 'heading']/subject}"/>
      <xsl:for-each select="$meta/kwd-group/kwd">
        <category scheme="urn:arno:keyword" term="{lower-case(normalize-space(.))}"/>
      </xsl:for-each>
      <rights><xsl:value-of select="$meta/permissions/copyright-statement"/></rights>
      <summary type="text">
        <xsl:variable name="abstract" select="normalize-space(string-join($meta/abstract//p, ' '))"/>
        <xsl:value-of select="if (string-length($abstract) le $max-summary) then $abstract
                              else concat(substring($abstract, 1, $max-summary - 1), '…')"/>
      </summary>
      <link rel="alternate" type="text/html"
            href="{$feed-base}{$journal}/{$meta/volume}/{$meta/issue}/{$meta/article-id[@pub-id-type = 'publisher-id']}"/>
      <xsl:for-each select="body//fig">
        <link rel="enclosure" type="image/svg+xml" href="{graphic/@xlink:href}"
              title="{label}. {replace(caption/title, '\.$', '')}"/>
      </xsl:for-each>
      <content type="xhtml">
        <h:div>
          <h:h1><xsl:value-of select="$meta/title-group/article-title"/></h:h1>
          <h:p class="authors">
            <xsl:value-of select="string-join($meta/contrib-group/contrib/name/a:name(.), ', ')"/>
          </h:p>
          <xsl:apply-templates select="$meta/abstract"/>
          <h:ol class="outline">
            <xsl:apply-templates select="body/sec" mode="outline"/>
          </h:ol>
          <xsl:if test="body//(fig | table-wrap)">
            <h:ul class="floats">
              <xsl:apply-templates select="body//(fig | table-wrap)" mode="float"/>
            </h:ul>
          </xsl:if>
          <h:p class="references">
            <xsl:variable name="cited" select="distinct-values(body//xref[@ref-type = 'bibr']/tokenize(@rid))"/>
            <xsl:value-of select="count(back/ref-list/ref)"/> references, <xsl:value-of select="count($cited)"/> cited;
            most recent <xsl:value-of select="max(back/ref-list/ref//year[. castable as xs:integer]/xs:integer(.))"/>.
          </h:p>
        </h:div>
      </content>
      <prism:doi><xsl:value-of select="$doi"/></prism:doi>
      <prism:publicationName><xsl:value-of select="front/journal-meta/journal-title-group/journal-title"/></prism:publicationName>
      <prism:issn><xsl:value-of select="front/journal-meta/issn"/></prism:issn>
      <prism:volume><xsl:value-of select="$meta/volume"/></prism:volume>
      <prism:number><xsl:value-of select="$meta/issue"/></prism:number>
      <prism:startingPage><xsl:value-of select="$meta/fpage"/></prism:startingPage>
      <prism:endingPage><xsl:value-of select="$meta/lpage"/></prism:endingPage>
    </entry>
  </xsl:template>

  <xsl:template match="contrib">
    <author>
      <name><xsl:value-of select="a:name(name)"/></name>
      <xsl:for-each select="email"><email><xsl:value-of select="."/></email></xsl:for-each>
      <xsl:for-each select="key('aff', xref[@ref-type = 'aff']/@rid)">
        <a:affiliation><xsl:value-of select="normalize-space(string-join((institution, country), ', '))"/></a:affiliation>
      </xsl:for-each>
    </author>
  </xsl:template>

  <xsl:template match="abstract">
    <h:div class="abstract"><xsl:apply-templates select="p"/></h:div>
  </xsl:template>

  <xsl:template match="p">
    <h:p><xsl:apply-templates/></h:p>
  </xsl:template>

  <xsl:template match="italic"><h:i><xsl:apply-templates/></h:i></xsl:template>
  <xsl:template match="bold"><h:b><xsl:apply-templates/></h:b></xsl:template>
  <xsl:template match="sup"><h:sup><xsl:apply-templates/></h:sup></xsl:template>
  <xsl:template match="sub"><h:sub><xsl:apply-templates/></h:sub></xsl:template>
  <xsl:template match="xref[@ref-type = 'bibr']">
    <h:a href="#{@rid}" title="{key('ref', tokenize(@rid))[1]//article-title}"><xsl:apply-templates/></h:a>
  </xsl:template>

  <xsl:template match="sec" mode="outline">
    <h:li>
      <xsl:value-of select="normalize-space(title)"/>
      <xsl:text> (</xsl:text>
      <xsl:value-of select="count(.//p)"/> paragraphs, <xsl:value-of select="sum(.//p/string-length(normalize-space(.)))"/> characters)
      <xsl:if test="sec"><h:ol><xsl:apply-templates select="sec" mode="outline"/></h:ol></xsl:if>
    </h:li>
  </xsl:template>

  <xsl:template match="fig | table-wrap" mode="float">
    <h:li id="{@id}"><h:b><xsl:value-of select="label"/></h:b>. <xsl:value-of select="caption/title"/></h:li>
  </xsl:template>
</xsl:stylesheet>
