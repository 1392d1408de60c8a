<?xml version="1.0" encoding="UTF-8"?>
<!--
  urn:arno:journal - a whole journal site, shared by every journal site and
  specialised with xsl:override in each site's site.xsl.

  Pages are modes; a route names one (site.xml: <template xslt="site.xsl" mode="toc"/>)
  and the server applies templates to the req:request document in it:

    home        /                                           volumes and their issues
    toc         /{volume}/{issue}                           an issue's table of contents
    abstract    /{volume}/{issue}/{article}                 title, authors, abstract, figures
    fulltext    /{volume}/{issue}/{article}/full            the whole article
    figure      /{volume}/{issue}/{article}/figures/{figure}         one figure, where it is cited
    figure-image /{volume}/{issue}/{article}/figures/{figure}/image  the figure's SVG
    search      /search?q=…&page=N&year=Y&subject=S         full-text search of the journal's articles
    error       (site.xml <error>)                          error pages in the site's layout

  How a page is built, in two steps:
  1. The page mode's template for "/" finds the resource (a few doc() calls,
     each document bound once to a variable) and describes the page as a map,
     the page model: kind, title, status, the request, and the nodes to show.
     A resource that does not exist gives kind 'not-found' and status 404.
  2. j:page writes the response and the layout around the main content,
     which comes from <xsl:apply-templates select="$page" mode="j:main"/>:
     one template rule per kind, matching ".[?kind eq 'toc']".
  The main content is written straight into the response, never built as a
  temporary tree and copied, and the model holds references to the source
  nodes, not copies: a full-text page costs one pass over the article.

  What sites override (all public): the branding variables ($j:site-name,
  $j:logo-text, $j:tagline), the style sheets (j:stylesheets; colours and
  fonts are CSS variables in each site's static/site.css),
  the layout pieces (j:page, j:masthead, j:navigation, j:footer), the main content of any kind
  (template rules in mode j:main, e.g. a different table of contents), and how
  JATS renders (mode j:jats). A site adds a page with its own mode that builds
  a page model of a new kind and a j:main rule for it.

  Written to be cheap per page (each rule measured, see the commit log):
  text that is only output is written as it is, part by part, rather than
  built into a string first: xsl:value-of and xsl:text, or value templates
  whose parts are single strings ({string(label)}), which Saxon writes
  straight out of text value templates; a part typed as elements is first
  joined into a string buffer, and so is every ||, string-join and
  attribute value template of several parts. Constant data is made at
  compile time (static variables), regexes are literals (compiled once),
  page models grow with map:put, not map:merge, and one-off lookups use
  paths, not keys (a key is indexed again in every transformation).

  Content comes in the store's resource model (an Atom entry per resource,
  its variants, its children; see the store's README). The route's filters
  fetch the page's entry: arno.filters.ContentPeek maps the request to the
  resource (site parameter content-base + the route variables) and
  arno.filters.ContentFetch appends it, expanded as the site parameter
  content-expand[.ROUTE] says, as req:request/msg:attribute[@name='content'];
  j:content() returns it. An issue comes with its articles
  (with-descendants=1), a figure with its ancestors (with-ancestors=yes:
  its article). A route without ContentFetch (an article's pages) gets
  the entry the peek found read in place: doc() on content: + its path +
  .atom, the stored tree itself, no copy. The rest (the JATS variant, an SVG) is read with
  doc() on content: + the href the entry holds (j:variant), which the server
  resolves to the store or to the content folder alike. Route variables are
  also checked against the generator's naming (v1, i1, a0001, f1) before any
  link is built from them.
-->
<xsl:package name="urn:arno:journal" package-version="1.0.0" version="3.0"
    expand-text="yes"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:map="http://www.w3.org/2005/xpath-functions/map"
    xmlns:req="urn:arno:request"
    xmlns:rsp="urn:arno:response"
    xmlns:err="urn:arno:error"
    xmlns:r="urn:arno:templates:response"
    xmlns:e="urn:arno:templates:error"
    xmlns:j="urn:arno:journal"
    xmlns:atom="http://www.w3.org/2005/Atom"
    xmlns:arno="urn:arno:atom"
    xmlns:msg="urn:arno:message"
    xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/"
    xmlns:xlink="http://www.w3.org/1999/xlink"
    xmlns:svg="http://www.w3.org/2000/svg"
    xmlns:store="urn:arno:store"
    xmlns:xe="http://www.w3.org/2005/xqt-errors"
    exclude-result-prefixes="#all">

  <xsl:use-package name="urn:arno:templates:response" package-version="1.*"/>
  <xsl:use-package name="urn:arno:templates:error" package-version="1.*">
    <!-- This package has its own, branded, error mode. -->
    <xsl:accept component="mode" names="error" visibility="hidden"/>
  </xsl:use-package>

  <xsl:mode name="home" visibility="public"/>
  <xsl:mode name="toc" visibility="public"/>
  <xsl:mode name="abstract" visibility="public"/>
  <xsl:mode name="fulltext" visibility="public"/>
  <xsl:mode name="figure" visibility="public"/>
  <xsl:mode name="figure-image" visibility="public"/>
  <xsl:mode name="error" visibility="public"/>
  <xsl:mode name="search" visibility="public"/>
  <xsl:mode name="j:main" visibility="public"/>
  <xsl:mode name="j:head" visibility="public"/>
  <xsl:mode name="j:jats" visibility="public" on-no-match="text-only-copy"/>

  <!-- ===== branding: overridden by every site ===== -->

  <xsl:variable name="j:site-name" as="xs:string" select="'Arno Journal'" visibility="public"/>
  <xsl:variable name="j:logo-text" as="xs:string" select="'AJ'" visibility="public"/>
  <xsl:variable name="j:tagline" as="xs:string" select="'Research articles'" visibility="public"/>
  <!--
    The page's style sheets: the sites' shared /static/journal.css, then the
    site's own static/site.css (its colours and font as CSS variables, and its
    own rules), both static files served with validators (README, "Static
    files"). A site replaces this template to link others.
  -->
  <xsl:template name="j:stylesheets" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <link rel="stylesheet" href="/static/journal.css"/>
    <link rel="stylesheet" href="{$page?base}/static/site.css"/>
  </xsl:template>

  <!-- ===== content access ===== -->

  <!--
    The entry the route's filters fetched (ContentPeek, then ContentFetch),
    expanded as the route asked; on a route with ContentPeek alone, the
    entry it found, read in place; empty when the resource does not exist.
  -->
  <xsl:function name="j:content" as="element(atom:entry)?" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:sequence select="($request/msg:attribute[@name eq 'content']/atom:entry,
        $request/msg:attribute[@name eq 'content-peek'][@kind = ('store', 'file')] ! j:doc('content:' || @path || '.atom')/atom:entry)[1]"/>
  </xsl:function>

  <!-- An entry's kind: its category in the scheme urn:arno:kind (journal, volume, issue, article, figure, ...). -->
  <xsl:function name="j:kind" as="xs:string" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)"/>
    <xsl:sequence select="string($entry/atom:category[@scheme eq 'urn:arno:kind']/@term)"/>
  </xsl:function>

  <!-- The children entries were fetched with (with-descendants), each entry's in name order. -->
  <xsl:function name="j:children" as="element(atom:entry)*" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)*"/>
    <xsl:sequence select="$entry/atom:link[@rel eq 'down']/arno:inline/atom:entry"/>
  </xsl:function>

  <!-- The parent an entry was fetched with (with-ancestors). -->
  <xsl:function name="j:parent" as="element(atom:entry)?" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)?"/>
    <xsl:sequence select="$entry/atom:link[@rel eq 'up']/arno:inline/atom:entry"/>
  </xsl:function>

  <!--
    The document of an entry's variant of a role (jats, image, table), read
    through content: and the store path the entry holds; empty when the
    entry has no such variant or it cannot be read.
  -->
  <xsl:function name="j:variant" as="document-node()?" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)?"/>
    <xsl:param name="role" as="xs:string"/>
    <xsl:sequence select="$entry/atom:link[@rel eq 'alternate'][@arno:role eq $role][1]/@href ! j:doc('content:' || .)"/>
  </xsl:function>

  <!--
    The route variables that name a resource, if every one has the form the
    generator gives (v1, i2, a0042, f3); otherwise the empty sequence, and the
    page is a 404. This is also what keeps a request from naming other files.
  -->
  <xsl:function name="j:checked" as="xs:string*" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="names" as="xs:string*"/>
    <xsl:variable name="values" select="$names ! r:variable($request, .)"/>
    <xsl:sequence select="if (count($values) eq count($names)
        and (every $i in 1 to count($names) satisfies j:well-formed($names[$i], $values[$i])))
        then $values else ()"/>
  </xsl:function>

  <!--
    Whether a route variable has the generator's form. Each pattern is a
    literal, so Saxon compiles it once with the stylesheet; a pattern taken
    from a map at run time was compiled again on every call. A name without a
    form is never well formed.
  -->
  <xsl:function name="j:well-formed" as="xs:boolean">
    <xsl:param name="name" as="xs:string"/>
    <xsl:param name="value" as="xs:string"/>
    <xsl:sequence select="
        if ($name eq 'volume') then matches($value, '^v[1-9][0-9]{0,3}$')
        else if ($name eq 'issue') then matches($value, '^i[1-9][0-9]{0,2}$')
        else if ($name eq 'article') then matches($value, '^a[0-9]{4,7}$')
        else if ($name eq 'figure') then matches($value, '^f[1-9][0-9]{0,2}$')
        else false()"/>
  </xsl:function>

  <!--
    The document at a URI, or empty if there is none (on any error, as
    doc-available() would say). One resolution of the URI: doc-available()
    followed by doc() resolved it twice.
  -->
  <xsl:function name="j:doc" as="document-node()?" visibility="public">
    <xsl:param name="uri" as="xs:string"/>
    <xsl:try select="doc($uri)">
      <xsl:catch errors="*" select="()"/>
    </xsl:try>
  </xsl:function>


  <!-- An entry's name, the last segment of its path (a0042), from its self link (/journals/ja/v1/i1/a0042.atom). -->
  <xsl:function name="j:entry-article" as="xs:string" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)"/>
    <xsl:sequence select="substring-before(tokenize($entry/atom:link[@rel eq 'self']/@href, '/')[last()], '.atom')"/>
  </xsl:function>

  <xsl:function name="j:entry-authors" as="xs:string" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)"/>
    <xsl:sequence select="string-join($entry/atom:author/atom:name, ', ')"/>
  </xsl:function>

  <xsl:function name="j:entry-type" as="xs:string" visibility="public">
    <xsl:param name="entry" as="element(atom:entry)"/>
    <xsl:sequence select="string($entry/atom:category[@scheme eq 'urn:arno:article-type']/@label)"/>
  </xsl:function>

  <!-- ===== page models ===== -->

  <!--
    What every page model holds; page modes add their own keys with map:put,
    which copies only the path to the new entry (map:merge of a new map with
    this one built both maps whole, on every page).
  -->
  <xsl:function name="j:model" as="map(*)" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="kind" as="xs:string"/>
    <xsl:param name="title" as="xs:string"/>
    <xsl:sequence select="map {
        'kind': $kind, 'title': $title, 'status': 200, 'request': $request,
        'base': r:base($request), 'journal': string(r:site-param($request, 'journal')), 'crumbs': () }"/>
  </xsl:function>

  <xsl:function name="j:not-found" as="map(*)" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="what" as="xs:string"/>
    <xsl:sequence select="j:model($request, 'not-found', 'Not found')
        => map:put('status', 404) => map:put('what', $what)"/>
  </xsl:function>

  <!-- A link inside the site: j:href($page, ('v1', 'i2')) is /journal-a/v1/i2 -->
  <xsl:function name="j:href" as="xs:string" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <xsl:param name="steps" as="xs:string*"/>
    <xsl:sequence select="$page?base || '/' || string-join($steps ! encode-for-uri(.), '/')"/>
  </xsl:function>

  <xsl:function name="j:crumb" as="map(*)" visibility="public">
    <xsl:param name="label" as="xs:string"/>
    <xsl:param name="steps" as="xs:string*"/>
    <xsl:sequence select="map { 'label': $label, 'steps': $steps }"/>
  </xsl:function>

  <xsl:function name="j:issue-label" as="xs:string" visibility="public">
    <xsl:param name="volume" as="xs:string"/>
    <xsl:param name="issue" as="xs:string"/>
    <xsl:sequence select="'Volume ' || substring($volume, 2) || ', Issue ' || substring($issue, 2)"/>
  </xsl:function>

  <!--
    An article page model (abstract, full text, figure), or 404 when the
    article does not exist. The article's entry is the fetched entry, or its
    parent on a figure's page; its JATS is the entry's jats variant.
  -->
  <xsl:function name="j:article-model" as="map(*)" visibility="public">
    <xsl:param name="request" as="element(req:request)"/>
    <xsl:param name="kind" as="xs:string"/>
    <xsl:param name="names" as="xs:string*"/>
    <xsl:variable name="page" select="j:model($request, $kind, '')"/>
    <xsl:variable name="ids" select="j:checked($request, $names)"/>
    <xsl:variable name="content" select="j:content($request)"/>
    <xsl:variable name="entry" select="if (exists($ids)) then ($content, j:parent($content))[j:kind(.) eq 'article'][1] else ()"/>
    <xsl:variable name="article" select="j:variant($entry, 'jats')/article"/>
    <xsl:sequence select="if (empty($article))
        then j:not-found($request, 'article ' || string-join($names[position() le 3] ! r:variable($request, .), '/'))
        else $page
          => map:put('title', normalize-space($article/front/article-meta/title-group/article-title))
          => map:put('article', $article) => map:put('entry', $entry)
          => map:put('volume-id', $ids[1]) => map:put('issue-id', $ids[2]) => map:put('article-id', $ids[3])
          => map:put('crumbs', j:crumb(j:issue-label($ids[1], $ids[2]), $ids[position() le 2]))"/>
  </xsl:function>

  <!-- ===== the layout ===== -->

  <!-- The response and the page around the main content; $page is a page model. -->
  <xsl:template name="j:page" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <rsp:response status="{$page?status}">
      <xsl:sequence select="$page?headers"/>
      <rsp:body method="html">
        <html lang="en">
          <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>{if ($page?kind eq 'home') then $j:site-name else $page?title || ' – ' || $j:site-name}</title>
            <xsl:call-template name="j:stylesheets">
              <xsl:with-param name="page" select="$page"/>
            </xsl:call-template>
            <xsl:apply-templates select="$page" mode="j:head"/>
          </head>
          <body class="page-{$page?kind}">
            <xsl:call-template name="j:masthead">
              <xsl:with-param name="page" select="$page"/>
            </xsl:call-template>
            <xsl:if test="$page?kind ne 'home'">
              <xsl:call-template name="j:crumbs">
                <xsl:with-param name="page" select="$page"/>
              </xsl:call-template>
            </xsl:if>
            <main id="content">
              <xsl:apply-templates select="$page" mode="j:main">
                <xsl:with-param name="page" select="$page" tunnel="yes"/>
              </xsl:apply-templates>
            </main>
            <xsl:call-template name="j:footer">
              <xsl:with-param name="page" select="$page"/>
            </xsl:call-template>
          </body>
        </html>
      </rsp:body>
    </rsp:response>
  </xsl:template>

  <xsl:template name="j:masthead" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <header class="masthead">
      <a class="logo" href="{j:href($page, ())}" aria-label="{$j:site-name} home">{$j:logo-text}</a>
      <span class="site-name">{$j:site-name}</span>
      <span class="tagline">{$j:tagline}</span>
      <nav aria-label="Site">
        <xsl:call-template name="j:navigation">
          <xsl:with-param name="page" select="$page"/>
        </xsl:call-template>
      </nav>
      <form class="site-search" role="search" action="{j:href($page, 'search')}" method="get">
        <input type="search" name="q" aria-label="Search the articles" placeholder="Search articles" value="{$page?q}"/>
        <button type="submit">Search</button>
      </form>
    </header>
  </xsl:template>

  <!-- The site's menu: links only, the masthead wraps them in <nav>. -->
  <xsl:template name="j:navigation" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <a href="{j:href($page, ())}">Issues</a>
  </xsl:template>

  <xsl:template name="j:crumbs" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <nav class="crumbs" aria-label="Breadcrumb">
      <ol>
        <li><a href="{j:href($page, ())}">Home</a></li>
        <xsl:for-each select="$page?crumbs">
          <li><a href="{j:href($page, ?steps)}">{?label}</a></li>
        </xsl:for-each>
        <li aria-current="page">{$page?title}</li>
      </ol>
    </nav>
  </xsl:template>

  <xsl:template name="j:footer" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <footer>
      <p>{$j:site-name} · {$j:tagline} · Published with Arno</p>
    </footer>
  </xsl:template>

  <!-- Extra <head> content by kind: citation metadata on article pages. -->
  <xsl:template match="." mode="j:head"/>

  <!--
    The parts of these attribute values are string(...), not the elements
    themselves: an attribute value template part typed as elements is joined
    with string-join (a string buffer each) before it is written.
  -->
  <xsl:template match=".[?kind = ('abstract', 'fulltext')]" mode="j:head">
    <xsl:variable name="meta" select="?article/front/article-meta"/>
    <meta name="citation_title" content="{normalize-space($meta/title-group/article-title)}"/>
    <xsl:for-each select="$meta/contrib-group/contrib/name">
      <meta name="citation_author" content="{string(surname)}, {string(given-names)}"/>
    </xsl:for-each>
    <meta name="citation_journal_title" content="{string(?article/front/journal-meta/journal-title-group/journal-title)}"/>
    <meta name="citation_publication_date" content="{$meta/pub-date[1] ! (year || '/' || month || '/' || day)}"/>
    <meta name="citation_volume" content="{string($meta/volume)}"/>
    <meta name="citation_issue" content="{string($meta/issue)}"/>
    <meta name="citation_firstpage" content="{string($meta/fpage)}"/>
    <meta name="citation_lastpage" content="{string($meta/lpage)}"/>
    <meta name="citation_doi" content="{string($meta/article-id[@pub-id-type eq 'doi'])}"/>
  </xsl:template>

  <!-- A kind without a j:main rule is a mistake in the site: say which. -->
  <xsl:template match="." mode="j:main" priority="-10">
    <xsl:sequence select="error(xs:QName('j:no-main'), 'No template rule in mode j:main for pages of kind '''
        || (if (. instance of map(*)) then ?kind else 'not a page model') || '''')"/>
  </xsl:template>

  <xsl:template match=".[?kind eq 'not-found']" mode="j:main">
    <h1>Not found</h1>
    <p>There is no {?what} in {$j:site-name}.</p>
    <p><a href="{j:href(., ())}">Browse the issues</a></p>
  </xsl:template>

  <!-- ===== search: the store's full-text index (store:ft-search), this journal's articles ===== -->

  <!--
    The query, the page number and the facet filters (year, subject) come from the URL; the hits
    from store:ft-search, filtered to this journal (the journal_id field). A query the index refuses
    is a 400 page saying why, an index not ready or busy a 503 page with Retry-After; other pages work
    either way. A page of hits is cached (site.xml) until the next commit the index applies.
  -->
  <xsl:template match="/" mode="search">
    <xsl:variable name="request" select="req:request"/>
    <xsl:variable name="q" select="normalize-space(r:parameter($request, 'q'))"/>
    <xsl:variable name="asked" select="r:parameter($request, 'page')"/>
    <xsl:variable name="n" select="if ($asked castable as xs:integer and xs:integer($asked) = 1 to 100) then xs:integer($asked) else 1"/>
    <xsl:variable name="filters" select="map:merge(('year', 'subject') ! (let $name := ., $v := r:parameter($request, $name)
        return if ($v) then map:entry($name, $v) else ()))"/>
    <xsl:variable name="page" select="j:model($request, 'search', if ($q) then 'Search: ' || $q else 'Search')
        => map:put('q', $q) => map:put('n', $n) => map:put('filters', $filters)"/>
    <xsl:variable name="found" as="item()?">
      <xsl:if test="$q">
        <xsl:try>
          <xsl:sequence select="store:ft-search($q, map:merge(($filters,
              map { 'size': 10, 'start': ($n - 1) * 10, 'journal_id': $page?journal, 'snippets': 2 })))"/>
          <xsl:catch errors="*">
            <xsl:sequence select="map { 'message': string(($xe:value, $xe:description)[1]),
                'code': local-name-from-QName($xe:code),
                'status': if (local-name-from-QName($xe:code) eq 'bad-query') then 400 else 503 }"/>
          </xsl:catch>
        </xsl:try>
      </xsl:if>
    </xsl:variable>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if ($found instance of map(*))
          then $page => map:put('status', $found?status) => map:put('error', $found?message)
              => map:put('headers', if ($found?code = ('search-busy', 'search-unavailable')) then r:header('Retry-After', '1') else ())
          else $page => map:put('results', $found)"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'search']" mode="j:main">
    <xsl:variable name="page" select="."/>
    <xsl:variable name="results" select="?results" as="element(store:results)?"/>
    <h1>Search</h1>
    <form class="search" role="search" action="{j:href($page, 'search')}" method="get">
      <input type="search" name="q" aria-label="Search the articles" value="{?q}"/>
      <button type="submit">Search</button>
    </form>
    <xsl:choose>
      <xsl:when test="not(?q)">
        <p class="search-hint">Type words to find them in the articles' titles, abstracts, text, authors and keywords:
          <kbd>"exact phrase"</kbd>, <kbd>-without</kbd>, <kbd>title:word</kbd>, <kbd>begin*</kbd>.</p>
      </xsl:when>
      <xsl:when test="exists(?error)">
        <p class="search-error" role="alert">{?error}</p>
      </xsl:when>
      <xsl:when test="xs:integer($results/@total) eq 0">
        <p class="no-results">No articles match <q>{?q}</q>. Try fewer words, another spelling, or the
          beginning of a word followed by <kbd>*</kbd>.</p>
      </xsl:when>
      <xsl:otherwise>
        <p class="search-count">{if ($results/@approximate = 'true') then 'About ' || j:about($results/@total)
          else string($results/@total)} articles match <q>{?q}</q></p>
        <div class="search-results">
          <ol class="results" start="{xs:integer($results/@start) + 1}">
            <xsl:for-each select="$results/store:hit">
              <xsl:variable name="steps" select="tokenize(substring-after(@path, r:site-param($page?request, 'content-base') || '/'), '/')"/>
              <li class="hit">
                <a href="{j:href($page, $steps)}">{string(store:field[@name eq 'title'][1])}</a>
                <span class="hit-meta">{string-join((store:field[@name eq 'authors'], store:field[@name eq 'year']), ' · ')}</span>
                <xsl:for-each select="store:snippet[position() le 2]">
                  <p class="snippet">
                    <xsl:for-each select="node()">
                      <xsl:choose>
                        <xsl:when test="self::store:match"><mark>{string(.)}</mark></xsl:when>
                        <xsl:otherwise><xsl:value-of select="."/></xsl:otherwise>
                      </xsl:choose>
                    </xsl:for-each>
                  </p>
                </xsl:for-each>
              </li>
            </xsl:for-each>
          </ol>
          <aside class="facets" aria-label="Refine">
            <xsl:for-each select="$results/store:facet[@field = ('year', 'subject')]">
              <xsl:variable name="field" select="string(@field)"/>
              <h2>{if ($field eq 'year') then 'Year' else 'Subject'}</h2>
              <ul>
                <xsl:for-each select="store:value">
                  <li><a href="{j:search-href($page, map:put($page?filters, $field, string(.)), 1)}">{string(.)}</a>
                    <span class="count"> ({if (../@approximate = 'true') then 'about ' || j:about(@count) else string(@count)})</span></li>
                </xsl:for-each>
              </ul>
            </xsl:for-each>
          </aside>
        </div>
        <nav class="pages" aria-label="Result pages">
          <xsl:if test="?n gt 1">
            <a rel="prev" href="{j:search-href($page, ?filters, ?n - 1)}">Previous</a>
          </xsl:if>
          <xsl:if test="xs:integer($results/@total) gt ?n * 10 and ?n lt 100">
            <a rel="next" href="{j:search-href($page, ?filters, ?n + 1)}">Next</a>
          </xsl:if>
        </nav>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- An estimated count as readers take it: three significant digits, thousands grouped (499,875: 500,000). -->
  <xsl:function name="j:about" as="xs:string">
    <xsl:param name="count" as="xs:string"/>
    <xsl:variable name="n" select="xs:integer($count)"/>
    <xsl:variable name="digits" select="string-length(string($n))"/>
    <xsl:sequence select="format-integer(if ($digits gt 3) then xs:integer(round($n, 3 - $digits)) else $n, '#,##0')"/>
  </xsl:function>

  <!-- The search page's URL for the same query with these filters, at page $n. -->
  <xsl:function name="j:search-href" as="xs:string" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <xsl:param name="filters" as="map(*)"/>
    <xsl:param name="n" as="xs:integer"/>
    <xsl:sequence select="j:href($page, 'search') || '?q=' || encode-for-uri($page?q)
        || string-join(map:keys($filters) ! ('&amp;' || . || '=' || encode-for-uri($filters(.))))
        || (if ($n gt 1) then '&amp;page=' || $n else '')"/>
  </xsl:function>

  <!-- ===== home: volumes and their issues, newest first ===== -->

  <!-- The journal's entry, fetched with its volumes and their issues (with-descendants=2). -->
  <xsl:template match="/" mode="home">
    <xsl:variable name="page" select="j:model(req:request, 'home', 'Home')"/>
    <xsl:variable name="journal" select="j:content(req:request)[j:kind(.) eq 'journal']"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if (empty($journal)) then j:not-found(req:request, 'journal ' || $page?journal)
          else $page
            => map:put('title', string($journal/atom:title)) => map:put('entry', $journal)
            => map:put('volumes', sort(j:children($journal), (), function($v) { -xs:integer($v/prism:volume) }))"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'home']" mode="j:main">
    <xsl:variable name="page" select="."/>
    <h1>{?title}</h1>
    <xsl:for-each select="?volumes">
      <xsl:variable name="volume" select="'v' || prism:volume"/>
      <section class="volume" id="{$volume}">
        <h2>{atom:title}</h2>
        <ul class="issues">
          <xsl:for-each select="j:children(.)">
            <xsl:sort select="xs:integer(prism:number)"/>
            <li>
              <a href="{j:href($page, ($volume, 'i' || prism:number))}">{atom:title}</a>
              <span class="meta"> · {string(atom:summary)}</span>
            </li>
          </xsl:for-each>
        </ul>
      </section>
    </xsl:for-each>
  </xsl:template>

  <!-- ===== toc: the articles of one issue ===== -->

  <xsl:template match="/" mode="toc">
    <xsl:variable name="request" select="req:request"/>
    <xsl:variable name="page" select="j:model($request, 'toc', '')"/>
    <xsl:variable name="ids" select="j:checked($request, ('volume', 'issue'))"/>
    <xsl:variable name="issue" select="if (exists($ids)) then j:content($request)[j:kind(.) eq 'issue'] else ()"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if (empty($issue))
          then j:not-found($request, 'issue ' || string-join(('volume', 'issue') ! r:variable($request, .), '/'))
          else $page
            => map:put('title', j:issue-label($ids[1], $ids[2])) => map:put('issue', $issue)
            => map:put('articles', sort(j:children($issue), (), function($a) { xs:integer($a/prism:startingPage) }))
            => map:put('volume-id', $ids[1]) => map:put('issue-id', $ids[2])"/>
    </xsl:call-template>
  </xsl:template>

  <!--
    The issue's entry, fetched with its articles (with-descendants=1), which
    the model holds in page order: grouped by article type, in that order.
  -->
  <xsl:template match=".[?kind eq 'toc']" mode="j:main">
    <xsl:variable name="page" select="."/>
    <h1>{?issue/atom:title}</h1>
    <p class="meta">{count(?articles)} articles</p>
    <xsl:for-each-group select="?articles" group-by="j:entry-type(.)">
      <h2 class="toc-type">{current-grouping-key()}</h2>
      <xsl:for-each select="current-group()">
        <xsl:call-template name="j:toc-item">
          <xsl:with-param name="page" select="$page"/>
        </xsl:call-template>
      </xsl:for-each>
    </xsl:for-each-group>
  </xsl:template>

  <!-- One article in a table of contents; the context item is its atom:entry. -->
  <xsl:template name="j:toc-item" visibility="public">
    <xsl:context-item as="element(atom:entry)" use="required"/>
    <xsl:param name="page" as="map(*)"/>
    <xsl:variable name="steps" select="$page?volume-id, $page?issue-id, j:entry-article(.)"/>
    <article class="toc-item">
      <h3><a href="{j:href($page, $steps)}">{atom:title}</a></h3>
      <p class="authors">{j:entry-authors(.)}</p>
      <p class="meta">pp. {string(prism:startingPage)}–{string(prism:endingPage)} ·
        <a href="https://doi.org/{string(prism:doi)}">doi:{string(prism:doi)}</a> ·
        <a href="{j:href($page, ($steps, 'full'))}">Full text</a></p>
    </article>
  </xsl:template>

  <!-- ===== abstract ===== -->

  <xsl:template match="/" mode="abstract">
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="j:article-model(req:request, 'abstract', ('volume', 'issue', 'article'))"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'abstract']" mode="j:main">
    <xsl:variable name="page" select="."/>
    <xsl:variable name="article-steps" select="?volume-id, ?issue-id, ?article-id"/>
    <article class="abstract-page">
      <xsl:call-template name="j:article-header">
        <xsl:with-param name="page" select="$page"/>
      </xsl:call-template>
      <xsl:apply-templates select="?article/front/article-meta/(abstract, kwd-group)" mode="j:jats">
        <xsl:with-param name="anchors" select="j:href($page, ($article-steps, 'full'))" tunnel="yes"/>
      </xsl:apply-templates>
      <p class="full-text-link"><a href="{j:href($page, ($article-steps, 'full'))}">Read the full text</a></p>
      <!-- Figures can sit at any depth of the body: one descendant walk, on this page only. -->
      <xsl:variable name="figures" select="?article/body//fig"/>
      <xsl:if test="exists($figures)">
        <section class="figures">
          <h2>Figures</h2>
          <ul>
            <xsl:for-each select="$figures">
              <li><a href="{j:href($page, ($article-steps, 'figures', @id))}">{label}</a>: {string(caption/title)}</li>
            </xsl:for-each>
          </ul>
        </section>
      </xsl:if>
    </article>
  </xsl:template>

  <!--
    Type, title, authors, affiliations and the citation line of an article page.
    Text value templates of several parts use string(...) for each part: with
    a part typed as nodes Saxon joins each part into a string buffer, then the
    parts into another, before writing; with single strings it writes each
    part straight to the output. Lists are written item by item for the same
    reason, not built with string-join.
  -->
  <xsl:template name="j:article-header" visibility="public">
    <xsl:param name="page" as="map(*)"/>
    <xsl:variable name="meta" select="$page?article/front/article-meta"/>
    <xsl:variable name="doi" select="string($meta/article-id[@pub-id-type eq 'doi'])"/>
    <header class="article-header">
      <p class="article-type">{$meta/article-categories/subj-group[@subj-group-type eq 'heading']/subject}</p>
      <h1>{normalize-space($meta/title-group/article-title)}</h1>
      <p class="authors">
        <xsl:for-each select="$meta/contrib-group/contrib">
          <xsl:if test="position() gt 1">, </xsl:if>
          <span class="author">{string(name/given-names)} {string(name/surname)}<sup>
              <xsl:for-each select="xref[@ref-type eq 'aff']">
                <xsl:if test="position() gt 1">,</xsl:if>
                <xsl:value-of select="."/>
              </xsl:for-each>
            </sup>
            <xsl:if test="@corresp eq 'yes' and email">
              <a class="corresp" href="mailto:{string(email)}" title="Corresponding author">✉</a>
            </xsl:if>
          </span>
        </xsl:for-each>
      </p>
      <ol class="affiliations">
        <xsl:for-each select="$meta/aff">
          <li id="{@id}"><sup>{label}</sup>
            <xsl:text> </xsl:text>
            <xsl:for-each select="institution, addr-line, country">
              <xsl:if test="position() gt 1">, </xsl:if>
              <xsl:value-of select="."/>
            </xsl:for-each>
          </li>
        </xsl:for-each>
      </ol>
      <p class="meta">
        <i>{$page?article/front/journal-meta/journal-title-group/journal-title}</i>
        {string($meta/volume)}({string($meta/issue)}): {string($meta/fpage)}–{string($meta/lpage)} ·
        Published {j:date($meta/pub-date[1])} ·
        <a class="doi" href="https://doi.org/{$doi}">https://doi.org/{$doi}</a>
      </p>
    </header>
  </xsl:template>

  <!--
    A JATS date (day, month, year) as "16 December 2011": what
    format-date($d, '[D] [MNn] [Y]', 'en') gives, for a tenth of its cost
    (format-date looks up a numberer and parses the picture on every call).
    The xs:date constructor still rejects a date that does not exist.
  -->
  <xsl:function name="j:date" as="xs:string?" visibility="public">
    <xsl:param name="date" as="element()?"/>
    <xsl:sequence select="for $d in $date ! xs:date(year || '-' || month || '-' || day)
        return day-from-date($d) || ' ' || $j:months[month-from-date($d)] || ' ' || year-from-date($d)"/>
  </xsl:function>

  <xsl:variable name="j:months" static="yes" as="xs:string+" select="('January', 'February', 'March', 'April',
      'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December')"/>

  <!-- ===== full text ===== -->

  <xsl:template match="/" mode="fulltext">
    <xsl:variable name="page" select="j:article-model(req:request, 'fulltext', ('volume', 'issue', 'article'))"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if ($page?kind eq 'not-found') then $page
          else $page
            => map:put('crumbs', ($page?crumbs, j:crumb($page?title, ($page?volume-id, $page?issue-id, $page?article-id))))
            => map:put('title', 'Full text')"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'fulltext']" mode="j:main">
    <article class="full-text">
      <xsl:call-template name="j:article-header">
        <xsl:with-param name="page" select="."/>
      </xsl:call-template>
      <nav class="outline" aria-label="Sections">
        <ol>
          <xsl:for-each select="?article/body/sec">
            <li><a href="#{@id}">{title}</a></li>
          </xsl:for-each>
          <xsl:if test="?article/back/ref-list"><li><a href="#references">References</a></li></xsl:if>
        </ol>
      </nav>
      <xsl:apply-templates select="?article/front/article-meta/(abstract, kwd-group), ?article/body/sec, ?article/back/(ack, ref-list)" mode="j:jats">
        <xsl:with-param name="anchors" select="''" tunnel="yes"/>
      </xsl:apply-templates>
    </article>
  </xsl:template>

  <!-- ===== figure: one figure, large, with the paragraphs that cite it ===== -->

  <xsl:template match="/" mode="figure">
    <xsl:variable name="request" select="req:request"/>
    <xsl:variable name="page" select="j:article-model($request, 'figure', ('volume', 'issue', 'article', 'figure'))"/>
    <xsl:variable name="id" select="r:variable($request, 'figure')"/>
    <!-- A path, not key(): a key is indexed again in every transformation, a whole-article walk for one lookup. -->
    <!-- The fetched entry is the figure's (with its article as parent); the figure itself is the JATS fig. -->
    <xsl:variable name="entry" select="j:content($request)[j:kind(.) eq 'figure']"/>
    <xsl:variable name="figure" select="if ($page?kind eq 'not-found' or empty($entry)) then () else $page?article//fig[@id eq $id]"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="if (empty($figure))
          then j:not-found($request, 'figure ' || $id || ' in article ' || r:variable($request, 'article'))
          else $page
            => map:put('title', $figure/label || ': ' || replace($figure/caption/title, '\.$', ''))
            => map:put('figure', $figure)
            => map:put('svg', j:variant($entry, 'image')/svg:svg)
            => map:put('crumbs', ($page?crumbs, j:crumb($page?title, ($page?volume-id, $page?issue-id, $page?article-id))))"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'figure']" mode="j:main">
    <xsl:variable name="page" select="."/>
    <xsl:variable name="article-steps" select="?volume-id, ?issue-id, ?article-id"/>
    <xsl:variable name="full" select="j:href($page, ($article-steps, 'full'))"/>
    <article class="figure-page">
      <figure id="{string(?figure/@id)}">
        <xsl:copy-of select="?svg"/>
        <figcaption>
          <strong>{string(?figure/label)}.</strong>
          <xsl:text> </xsl:text>
          <xsl:apply-templates select="?figure/caption/node()" mode="j:jats">
            <xsl:with-param name="anchors" select="$full" tunnel="yes"/>
          </xsl:apply-templates>
        </figcaption>
      </figure>
      <xsl:variable name="citing" select="?article//xref[@rid eq string(current()?figure/@id)]/ancestor::p[1]"/>
      <xsl:if test="exists($citing)">
        <section class="cited-in">
          <h2>Cited in the text</h2>
          <xsl:for-each select="$citing">
            <blockquote>
              <p class="meta"><a href="{$full}#{ancestor::sec[1]/@id}">{ancestor::sec[1]/title}</a></p>
              <xsl:apply-templates select="." mode="j:jats">
                <xsl:with-param name="anchors" select="$full" tunnel="yes"/>
              </xsl:apply-templates>
            </blockquote>
          </xsl:for-each>
        </section>
      </xsl:if>
      <xsl:variable name="all" select="?article/body//fig"/>
      <xsl:variable name="at" select="index-of($all ! generate-id(), generate-id(?figure))"/>
      <nav class="figure-nav" aria-label="Figures">
        <xsl:for-each select="$all[$at - 1]">
          <a rel="prev" href="{j:href($page, ($article-steps, 'figures', @id))}">← {string(label)}</a>
          <xsl:text> · </xsl:text>
        </xsl:for-each>
        <a href="{j:href($page, $article-steps)}">Back to the article</a>
        <xsl:for-each select="$all[$at + 1]">
          <xsl:text> · </xsl:text>
          <a rel="next" href="{j:href($page, ($article-steps, 'figures', @id))}">{string(label)} →</a>
        </xsl:for-each>
      </nav>
    </article>
  </xsl:template>

  <!-- The figure's image alone, as image/svg+xml; the full text links to it. -->
  <xsl:template match="/" mode="figure-image">
    <xsl:variable name="request" select="req:request"/>
    <xsl:variable name="page" select="j:model($request, 'figure-image', '')"/>
    <xsl:variable name="ids" select="j:checked($request, ('volume', 'issue', 'article', 'figure'))"/>
    <xsl:variable name="svg" select="if (exists($ids)) then j:variant(j:content($request)[j:kind(.) eq 'figure'], 'image')/svg:svg else ()"/>
    <xsl:choose>
      <xsl:when test="exists($svg)">
        <rsp:response status="200">
          <rsp:header name="Cache-Control">public, max-age=86400</rsp:header>
          <rsp:body method="xml" media-type="image/svg+xml" omit-xml-declaration="true">
            <xsl:copy-of select="$svg"/>
          </rsp:body>
        </rsp:response>
      </xsl:when>
      <xsl:otherwise>
        <xsl:call-template name="j:page">
          <xsl:with-param name="page" select="j:not-found($request, 'figure image ' || r:variable($request, 'figure'))"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- ===== error pages in the site's layout ===== -->

  <xsl:template match="/" mode="error">
    <xsl:variable name="request" select="req:request"/>
    <xsl:variable name="status" select="e:status(r:error($request))"/>
    <xsl:call-template name="j:page">
      <xsl:with-param name="page" select="j:model($request, 'error', $status || ' ' || r:status-text($status))
          => map:put('status', $status) => map:put('error', r:error($request))"/>
    </xsl:call-template>
  </xsl:template>

  <xsl:template match=".[?kind eq 'error']" mode="j:main">
    <h1>{?title}</h1>
    <xsl:call-template name="e:summary">
      <xsl:with-param name="error" select="?error"/>
    </xsl:call-template>
    <p><a href="{j:href(., ())}">Browse the issues</a></p>
    <xsl:call-template name="e:details">
      <xsl:with-param name="request" select="?request"/>
    </xsl:call-template>
  </xsl:template>

  <!-- ===== JATS to HTML ===== -->
  <!--
    Tunnel parameter $anchors: the URL that in-article anchors (#r3, #f1)
    belong to: '' on the full-text page, the full-text URL elsewhere.
    Tunnel parameter $page: the page model, for links to figure pages.
  -->

  <xsl:template match="sec" mode="j:jats">
    <section id="{@id}">
      <xsl:apply-templates mode="#current"/>
    </section>
  </xsl:template>

  <!-- Heading levels by nesting, as patterns rather than a computed element name. -->
  <xsl:template match="body/sec/title" mode="j:jats">
    <h2><xsl:apply-templates mode="#current"/></h2>
  </xsl:template>
  <xsl:template match="body/sec/sec/title" mode="j:jats">
    <h3><xsl:apply-templates mode="#current"/></h3>
  </xsl:template>
  <xsl:template match="sec/sec/sec/title" mode="j:jats">
    <h4><xsl:apply-templates mode="#current"/></h4>
  </xsl:template>

  <xsl:template match="p" mode="j:jats">
    <p><xsl:apply-templates mode="#current"/></p>
  </xsl:template>

  <xsl:template match="italic" mode="j:jats"><em><xsl:apply-templates mode="#current"/></em></xsl:template>
  <xsl:template match="bold" mode="j:jats"><strong><xsl:apply-templates mode="#current"/></strong></xsl:template>
  <xsl:template match="sup" mode="j:jats"><sup><xsl:apply-templates mode="#current"/></sup></xsl:template>
  <xsl:template match="sub" mode="j:jats"><sub><xsl:apply-templates mode="#current"/></sub></xsl:template>

  <xsl:template match="xref" mode="j:jats">
    <xsl:param name="anchors" as="xs:string" tunnel="yes"/>
    <a class="xref xref-{@ref-type}" href="{$anchors}#{@rid}"><xsl:apply-templates mode="#current"/></a>
  </xsl:template>

  <!--
    Three links in four point at references. Their own rule writes the class
    as a literal: an attribute value template builds a string on every link
    (about a sixth of the cost of a link; a lookup in a map of classes costs
    as much). The href has to be built.
  -->
  <xsl:template match="xref[@ref-type eq 'bibr']" mode="j:jats">
    <xsl:param name="anchors" as="xs:string" tunnel="yes"/>
    <a class="xref xref-bibr" href="{$anchors}#{@rid}"><xsl:apply-templates mode="#current"/></a>
  </xsl:template>

  <xsl:template match="abstract" mode="j:jats">
    <section class="abstract" id="abstract">
      <h2>Abstract</h2>
      <xsl:apply-templates select="p" mode="#current"/>
    </section>
  </xsl:template>

  <xsl:template match="kwd-group" mode="j:jats">
    <p class="keywords"><strong>Keywords: </strong>{string-join(kwd, ' · ')}</p>
  </xsl:template>

  <xsl:template match="fig" mode="j:jats">
    <xsl:param name="page" as="map(*)" tunnel="yes"/>
    <xsl:variable name="href" select="j:href($page, ($page?volume-id, $page?issue-id, $page?article-id, 'figures', string(@id)))"/>
    <figure id="{@id}" class="fig">
      <a href="{$href}">
        <img src="{$href}/image" alt="{string(caption/title)}" loading="lazy" width="400" height="240"/>
      </a>
      <figcaption><strong>{string(label)}.</strong><xsl:text> </xsl:text><xsl:apply-templates select="caption/node()" mode="#current"/></figcaption>
    </figure>
  </xsl:template>

  <xsl:template match="caption/title" mode="j:jats">
    <b><xsl:apply-templates mode="#current"/></b>
    <xsl:text> </xsl:text>
  </xsl:template>

  <xsl:template match="caption/p" mode="j:jats">
    <xsl:apply-templates mode="#current"/>
  </xsl:template>

  <xsl:template match="table-wrap" mode="j:jats">
    <figure id="{@id}" class="table">
      <figcaption><strong>{string(label)}.</strong><xsl:text> </xsl:text><xsl:apply-templates select="caption/node()" mode="#current"/></figcaption>
      <xsl:apply-templates select="table" mode="#current"/>
      <xsl:apply-templates select="table-wrap-foot/fn/p" mode="#current"/>
    </figure>
  </xsl:template>

  <!--
    JATS tables are XHTML tables: the same element names, presentation
    attributes dropped. One literal result element per name: cheaper than a
    computed name, and tables are most of the nodes of a full-text page.
  -->
  <xsl:template match="table" mode="j:jats"><table><xsl:apply-templates mode="#current"/></table></xsl:template>
  <xsl:template match="thead" mode="j:jats"><thead><xsl:apply-templates mode="#current"/></thead></xsl:template>
  <xsl:template match="tbody" mode="j:jats"><tbody><xsl:apply-templates mode="#current"/></tbody></xsl:template>
  <xsl:template match="tfoot" mode="j:jats"><tfoot><xsl:apply-templates mode="#current"/></tfoot></xsl:template>
  <xsl:template match="tr" mode="j:jats"><tr><xsl:apply-templates mode="#current"/></tr></xsl:template>
  <xsl:template match="th" mode="j:jats">
    <th><xsl:copy-of select="@colspan, @rowspan"/><xsl:apply-templates mode="#current"/></th>
  </xsl:template>
  <xsl:template match="td" mode="j:jats">
    <td><xsl:copy-of select="@colspan, @rowspan"/><xsl:apply-templates mode="#current"/></td>
  </xsl:template>

  <xsl:template match="ack" mode="j:jats">
    <section class="acknowledgements" id="acknowledgements">
      <h2>Acknowledgements</h2>
      <xsl:apply-templates select="p" mode="#current"/>
    </section>
  </xsl:template>

  <xsl:template match="ref-list" mode="j:jats">
    <section class="references" id="references">
      <h2>{(title, 'References')[1]}</h2>
      <ol>
        <xsl:apply-templates select="ref" mode="#current"/>
      </ol>
    </section>
  </xsl:template>

  <xsl:template match="ref" mode="j:jats">
    <li id="{@id}"><xsl:apply-templates select="element-citation | mixed-citation" mode="#current"/></li>
  </xsl:template>

  <!--
    Vancouver-like: Authors (year). Title. Source volume:pages. DOI.
    A page has up to a hundred references: each part is written as its own
    text node (the serializer joins them) rather than built into a string
    with || or string-join and then written, which costs a string buffer per
    join. Text value templates of several parts are avoided here for the same
    reason: with node-valued parts Saxon builds their whole string first.
    Plain-text parts are copied as their text nodes (xsl:value-of atomizes and
    joins even one node); titles and sources are rendered by the JATS rules,
    as body text is.
  -->
  <xsl:template match="element-citation" mode="j:jats">
    <span class="ref-authors">
      <xsl:for-each select="person-group/name">
        <xsl:if test="position() ne 1">, </xsl:if>
        <xsl:copy-of select="surname/text()"/>
        <xsl:text> </xsl:text>
        <xsl:copy-of select="given-names/text()"/>
      </xsl:for-each>
      <xsl:if test="person-group/etal">, et al.</xsl:if>
    </span>
    <xsl:text> (</xsl:text>
    <xsl:copy-of select="year/text()"/>
    <xsl:text>). </xsl:text>
    <xsl:choose>
      <xsl:when test="@publication-type eq 'book'">
        <i><xsl:apply-templates select="source/node()" mode="#current"/></i>
        <xsl:text>. </xsl:text>
        <xsl:for-each select="publisher-loc, publisher-name">
          <xsl:if test="position() ne 1">: </xsl:if>
          <xsl:copy-of select="text()"/>
        </xsl:for-each>
        <xsl:text>.</xsl:text>
      </xsl:when>
      <xsl:otherwise>
        <xsl:apply-templates select="article-title/node()" mode="#current"/>
        <xsl:text>. </xsl:text>
        <i><xsl:apply-templates select="source/node()" mode="#current"/></i>
        <xsl:for-each select="volume">
          <xsl:text> </xsl:text>
          <xsl:copy-of select="text()"/>
        </xsl:for-each>
        <xsl:if test="fpage">
          <xsl:text>:</xsl:text>
          <xsl:copy-of select="fpage/text()"/>
          <xsl:for-each select="lpage">
            <xsl:text>–</xsl:text>
            <xsl:copy-of select="text()"/>
          </xsl:for-each>
        </xsl:if>
        <xsl:text>.</xsl:text>
      </xsl:otherwise>
    </xsl:choose>
    <xsl:for-each select="pub-id[@pub-id-type eq 'doi']">
      <xsl:text> </xsl:text>
      <a href="https://doi.org/{.}">doi:<xsl:copy-of select="text()"/></a>
    </xsl:for-each>
  </xsl:template>
</xsl:package>
