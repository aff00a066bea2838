__all__ = ['ttypes', 'constants', 'Coordinator', 'JobControl', 'ScriptChannel']
