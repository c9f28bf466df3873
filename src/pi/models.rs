//! The one parser of pi's `--list-models` table
//! (`provider  model  context  max-out  thinking  images`).

/// The `(provider, model)` pairs pi lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelList {
    pub models: Vec<(String, String)>,
}

impl ModelList {
    /// Parse the table: the rows after the `provider model …` header (lines before
    /// it, such as warnings, are not models).
    pub fn parse(text: &str) -> ModelList {
        let mut models = Vec::new();
        let mut seen_header = false;
        for line in text.lines() {
            let mut cols = line.split_whitespace();
            let (Some(p), Some(m)) = (cols.next(), cols.next()) else {
                continue;
            };
            if p == "provider" && m == "model" {
                seen_header = true;
            } else if seen_header {
                models.push((p.to_string(), m.to_string()));
            }
        }
        ModelList { models }
    }

    /// The model ids listed for `provider`.
    pub fn ids_of(&self, provider: &str) -> Vec<String> {
        self.models
            .iter()
            .filter(|(p, _)| p == provider)
            .map(|(_, m)| m.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_model_table() {
        let table = "warning: something\nprovider  model          context  max-out  thinking  images\nmock      mock-model     128K     16.4K    no        no    \nmock      mock-reasoner  128K     16.4K    yes       no    \nother     x              1K       1K       no        no\n";
        let list = ModelList::parse(table);
        assert_eq!(list.models.len(), 3);
        assert_eq!(list.ids_of("mock"), ["mock-model", "mock-reasoner"]);
        assert!(list.ids_of("nope").is_empty());
        assert!(ModelList::parse("no table here\n").models.is_empty());
    }
}
