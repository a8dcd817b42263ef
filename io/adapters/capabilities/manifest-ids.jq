# Installed by slipway for the source envelope procedure: prints the comment node ids the manifest names, one per line.
(.data.repository.issue // error("issue not found")).body
| split("\r\n") | join("\n") | split("\r") | join("\n")
| split("<!-- slipway:manifest-fence -->\n")
| if length < 2 then empty
  else .[1] | split("\n<!-- slipway:manifest-close -->")[0] | (try fromjson catch null)
    | if type == "object" then [(.sections // [])[]? | .comment_node_id? | strings] | unique | .[] else empty end
  end
