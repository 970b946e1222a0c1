"""(stage under construction)"""
