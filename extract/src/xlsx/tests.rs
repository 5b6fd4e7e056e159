//! Workbooks built in memory: values, layouts and hostile inputs.
