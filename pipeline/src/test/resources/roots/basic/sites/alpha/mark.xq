(: An XQuery filter: the request with one more msg:attribute. :)
declare namespace req = "urn:arno:request";
declare namespace msg = "urn:arno:message";
document {
  element { node-name(/req:request) } {
    /req:request/@*, /req:request/node(),
    <msg:attribute name="square">{ let $n := xs:integer(/req:request/req:route/req:variable[@name = 'n']) return trace($n * $n, 'square') }</msg:attribute>
  }
}
