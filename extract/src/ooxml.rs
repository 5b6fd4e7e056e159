//! The Office Open XML container python-docx and python-pptx read: XML parts
//! as lxml parses them, and the package's part names and relationships.

pub(crate) mod xml;
