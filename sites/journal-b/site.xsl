<?xml version="1.0" encoding="UTF-8"?>
<!--
  Materials Informatics Review (journal 'jb'): the shared journal site with
  its own branding and a table of contents laid out as one table in page
  order, each abstract folded under its title.
-->
<xsl:stylesheet version="3.0" expand-text="yes"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:j="urn:arno:journal"
    xmlns:atom="http://www.w3.org/2005/Atom"
    xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"
    exclude-result-prefixes="#all">

  <xsl:use-package name="urn:arno:journal" package-version="1.*">
    <!-- The page modes become this stylesheet's entry points (site.xml names them). -->
    <xsl:accept component="mode" names="*" visibility="public"/>
    <xsl:override>
      <xsl:variable name="j:site-name" as="xs:string" select="'Materials Informatics Review'"/>
      <xsl:variable name="j:logo-text" as="xs:string" select="'MIR'"/>
      <xsl:variable name="j:tagline" as="xs:string" select="'Data-driven materials science'"/>
      <xsl:template match=".[?kind eq 'toc']" mode="j:main">
        <xsl:variable name="page" select="."/>
        <h1>{?issue/atom:title}</h1>
        <table class="toc-table">
          <thead>
            <tr><th scope="col">Pages</th><th scope="col">Article</th><th scope="col">Type</th></tr>
          </thead>
          <tbody>
            <xsl:for-each select="?articles">
              <xsl:variable name="steps" select="$page?volume-id, $page?issue-id, j:entry-article(.)"/>
              <tr>
                <td class="pages">{string(prism:startingPage)}–{string(prism:endingPage)}</td>
                <td>
                  <a href="{j:href($page, $steps)}">{atom:title}</a>
                  <div class="authors">{j:entry-authors(.)}</div>
                  <details>
                    <summary>Abstract</summary>
                    <p>{atom:summary}</p>
                    <p><a href="{j:href($page, ($steps, 'full'))}">Full text</a></p>
                  </details>
                </td>
                <td>{j:entry-type(.)}</td>
              </tr>
            </xsl:for-each>
          </tbody>
        </table>
      </xsl:template>
    </xsl:override>
  </xsl:use-package>
</xsl:stylesheet>
