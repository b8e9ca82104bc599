# The built-in lessons, compiled into attn_io as Qt resources under
# :/lessons/. index.json gives their order in menus and listings.
file(GLOB ATTN_LESSON_FILES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.json")
