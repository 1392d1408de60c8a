declare namespace req = "urn:arno:request";
declare namespace rsp = "urn:arno:response";
<rsp:response status="200">
  <rsp:body method="xml"><sum>{ sum(1 to xs:integer(/req:request/req:route/req:variable[@name = 'n'])) }</sum></rsp:body>
</rsp:response>
