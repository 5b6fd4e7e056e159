//! The Office Open XML container python-docx and python-pptx read: XML parts
//! as lxml parses them, the package's part names and relationships, and
//! the element navigation both libraries use.

pub(crate) mod opc;
pub(crate) mod walk;
pub(crate) mod xml;
