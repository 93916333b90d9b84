"""Streamlit helpers shared by the pages (UI only; the core lives in graphrag/)."""
