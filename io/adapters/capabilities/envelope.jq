# Installed by slipway for the source envelope procedure: checks the second read and prints the envelope.
def manifest_ids:
  split("\r\n") | join("\n") | split("\r") | join("\n")
  | split("<!-- slipway:manifest-fence -->\n")
  | if length < 2 then []
    else [.[1] | split("\n<!-- slipway:manifest-close -->")[0] | (try fromjson catch null)
      | if type == "object" then (.sections // [])[]? | .comment_node_id? | strings else empty end] | unique
    end;
.data as $d
| ($d.repository // error("repository not found")) as $r
| ($r.issue // error("issue not found")) as $i
| if $i.labels.totalCount > <!-- slipway:max-labels --> then error("the Issue has more than <!-- slipway:max-labels --> labels") else . end
| [$d.nodes[]
   | if . == null or .__typename != "IssueComment" then error("a manifest id is not an Issue comment")
     elif .issue.id != $i.id then error("a manifest comment belongs to another Issue")
     elif (.author.id // null) == null then error("a manifest comment has no author node id")
     else {node_id: .id, database_id: .databaseId, url: .url, updated_at: .updatedAt,
           author_id: .author.id, is_minimized: .isMinimized, body: .body}
     end] as $c
| if ($i.body | manifest_ids) != ([$c[].node_id] | unique) then error("the Issue changed between the two reads; run both reads again") else . end
| {source_version: <!-- slipway:source-version -->, provider: "github", host: "github.com",
   repository_id: $r.id, issue_id: $i.id, issue_number: $i.number,
   canonical_url: $i.url, updated_at: $i.updatedAt, fetched_at: (now | todate),
   title: $i.title, body: $i.body, labels: [$i.labels.nodes[].name], comments: $c}
  + (if $i.parent == null then {}
     else {parent: {repository_id: $i.parent.repository.id, issue_id: $i.parent.id, canonical_url: $i.parent.url}} end)
